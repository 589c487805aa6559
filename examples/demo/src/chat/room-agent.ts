/**
 * The lobby's agent member (docs/rooms.md, *Virtual members*): the demo's `assistant` agent is in
 * `#lobby`'s presence, and a message there that addresses it (`@assistant …`) is answered in the
 * room, streamed as it is written: chunk messages with one `stream` id, then one with `done`. The
 * run is the room's (owner `room:/fw/chat/lobby`), not the asker's; one answer at a time.
 */
import { agentModuleOf } from '@fw/agent';
import { addresses, useRooms, type Framework } from '@fw/runtime';
import { roomHistory } from './history.js';

export const ROOM_AGENT = 'assistant';

export function installRoomAgent(fw: Framework, room = 'lobby'): () => void {
  const history = roomHistory(fw);
  const name = `${fw.path}/chat/${room}`;
  let running: AbortController | undefined;
  let streams = 0;
  return useRooms(fw).addVirtualMember(name, {
    name: ROOM_AGENT,
    meta: { name: ROOM_AGENT, agent: true },
    message(data, _from, handle) {
      const asked = textOf(data);
      if (asked === undefined || !addresses(asked, ROOM_AGENT) || running !== undefined) return;
      const host = agentModuleOf(fw)?.host;
      if (host === undefined) return;
      const prompt = asked.replace(new RegExp(`@${ROOM_AGENT}\\b[,:]?`, 'gi'), '').trim() || 'hello';
      const stream = `${ROOM_AGENT}-${Date.now().toString(36)}-${++streams}`;
      const controller = (running = new AbortController());
      const say = (fields: Record<string, unknown>): void => {
        handle.publish({ user: ROOM_AGENT, at: Date.now(), agent: true, stream, ...fields });
      };
      void host
        .run(ROOM_AGENT, { message: prompt, owner: `principal:${handle.principal}` }, controller.signal, (event) => {
          if (event.type === 'text' && event.subagentRunId === undefined && handle.present) say({ text: event.delta });
        })
        .then(
          (answer) => {
            say({ text: '', done: true });
            history.remember(room, { user: ROOM_AGENT, text: answer, at: Date.now() });
          },
          (err: unknown) => say({ text: `(${err instanceof Error ? err.message : 'failed'})`, done: true }),
        )
        .finally(() => {
          running = undefined;
        });
    },
  });
}

function textOf(data: string): string | undefined {
  try {
    const m = JSON.parse(data) as { text?: unknown };
    return typeof m.text === 'string' ? m.text : undefined;
  } catch {
    return undefined;
  }
}
