/**
 * The simulated chat participants: a fixed cast, two per room, each a real fw client
 * (`@fw/client/node`) connected to the demo over loopback, so every connection, message and
 * broadcast the admin plane counts is one the runtime really carried. They are labelled twice:
 * their names start with `sim-` and every message they send carries `simulated: true`; their
 * connections ask for `?simulated=1`.
 */
import { connect, type FwClient, type TransportName } from '@fw/client/node';

export interface Cast {
  room: string;
  name: string;
  /** Different transports, so the dashboard's "connections by transport" has more than one line. */
  transport: TransportName;
  lines: readonly string[];
}

/** Two participants per room: six connections, never more (the simulation is bounded). */
export const CAST: readonly Cast[] = [
  {
    room: 'lobby',
    name: 'sim-ada',
    transport: 'websocket',
    lines: [
      'Morning all!',
      'Anyone tried the slow agent yet? Its Stop button is fun.',
      'The dashboard at /fw/admin/ shows us live.',
      'I reconnected and got every message back.',
      'Coffee time.',
    ],
  },
  {
    room: 'lobby',
    name: 'sim-grace',
    transport: 'sse',
    lines: [
      'Hi Ada!',
      'I am on SSE, you are on a WebSocket: same room.',
      'Try "/time" with the assistant agent.',
      'The ticker never sleeps.',
      'Back in a minute.',
    ],
  },
  {
    room: 'random',
    name: 'sim-linus',
    transport: 'long-polling',
    lines: [
      'Long-polling here, still real time.',
      'Who broke the build? Not me.',
      'Tabs or spaces?',
      'My proxy hates WebSockets, so long-polling it is.',
    ],
  },
  {
    room: 'random',
    name: 'sim-barbara',
    transport: 'websocket',
    lines: [
      'Spaces. Obviously.',
      'Abstraction is the art of leaving things out.',
      'Has anyone read the coordination journal?',
      'The lead coordinator asked research, then the assistant.',
    ],
  },
  {
    room: 'help',
    name: 'sim-ken',
    transport: 'streaming',
    lines: [
      'How do I cancel an agent run?',
      'Thanks! And from a desktop MCP client?',
      'Where do the settings live?',
      'Is the admin plane open to the network?',
    ],
  },
  {
    room: 'help',
    name: 'sim-margaret',
    transport: 'sse',
    lines: [
      'Stop on the chat page, Cancel in the dashboard, or fw_cancel_task over MCP.',
      'The demo prints the stdio bridge line at start.',
      'docs/configuration.md lists every key.',
      'Loopback only until you configure a credential.',
    ],
  },
];

export interface SimulatedParticipant {
  readonly cast: Cast;
  readonly client: FwClient;
  sent: number;
}

/** Connects one participant; it reconnects on its own (the client's backoff) until `close()`. */
export function connectParticipant(baseUrl: string, cast: Cast): SimulatedParticipant {
  const url = new URL(`fw/chat/${encodeURIComponent(cast.room)}?simulated=1`, baseUrl);
  const client = connect(url, { transports: [cast.transport] });
  // What the room says is for the people in it; a participant does not read it. Listening keeps
  // the client's queue drained (no buffering without bound).
  client.onMessage(() => {});
  return { cast, client, sent: 0 };
}

/** The participant's next line (its script, round robin) as a chat message, or false when offline. */
export function speak(p: SimulatedParticipant): boolean {
  if (p.client.state !== 'open') return false;
  const text = p.cast.lines[p.sent % p.cast.lines.length]!;
  p.client.send({ user: p.cast.name, text, at: Date.now(), simulated: true });
  p.sent++;
  return true;
}
