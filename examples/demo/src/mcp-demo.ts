import type { Framework } from '@fw/runtime';
import { McpMessage, McpParam, McpPrompt, McpResource, McpServer, McpTool, mountMcpServer, type McpContext } from '@fw/mcp';
import { ROOMS } from './chat/index.js';
import { roomHistory, type ChatMessage, type RoomHistory } from './chat/history.js';

const ROOM_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;

/**
 * The demo's MCP server at `/mcp`: an assistant can list the chat rooms, read a room's recent
 * messages (`fw://rooms/{roomId}`), post into a room (the message reaches every open chat page
 * live, through the room's broadcaster `/fw/chat/<room>`) and fetch a prompt that summarises a room.
 */
@McpServer({
  name: 'fw-demo',
  version: '1.0.0',
  path: '/mcp',
  instructions: 'Tools for the fw demo chat: list rooms, read and post messages.',
})
export class DemoMcpServer {
  /** Recent messages per room (chat/history.ts: every chat message, and what this server posts). */
  private readonly history: RoomHistory;

  constructor(private readonly fw: Framework) {
    this.history = roomHistory(fw);
  }

  @McpTool({ name: 'list_rooms', description: 'Lists the chat rooms with how many people are in each' })
  listRooms(): { name: string; members: number; recentMessages: number }[] {
    const prefix = `${this.fw.path}/chat/`;
    const live = new Map(
      this.fw.runtime
        .listBroadcasters()
        .filter((b) => b.id.startsWith(prefix))
        .map((b) => [b.id.slice(prefix.length), b.resourceCount]),
    );
    const names = [...new Set<string>([...ROOMS, ...live.keys(), ...this.history.names()])];
    return names.map((name) => ({ name, members: live.get(name) ?? 0, recentMessages: this.history.recent(name).length }));
  }

  @McpTool({ name: 'post_message', description: 'Posts a message into a chat room; everyone in the room sees it live' })
  postMessage(
    @McpParam({ name: 'room', description: 'Room name, e.g. lobby', type: 'string' }) room: string,
    @McpParam({ name: 'text', description: 'The message', type: 'string' }) text: string,
    @McpParam({ name: 'user', description: 'Name to post as (default: the MCP principal or "assistant")', type: 'string', required: false })
    user: string | undefined,
    ctx: McpContext,
  ): { room: string; delivered: number } {
    if (!ROOM_NAME.test(room)) throw new Error(`'${room}' is not a room name (1–32 lowercase letters, digits or dashes)`);
    if (!text.trim()) throw new Error('the message is empty');
    const message: ChatMessage = { user: user || ctx.principal?.id || 'assistant', text, at: Date.now() };
    const broadcaster = this.fw.broadcasters.lookup(`${this.fw.path}/chat/${room}`, true);
    const delivered = broadcaster.broadcast(message);
    this.history.remember(room, message);
    return { room, delivered };
  }

  @McpResource({
    uri: 'fw://rooms/{roomId}',
    name: 'Chat room',
    description: 'The recent messages of a chat room (JSON)',
    mimeType: 'application/json',
  })
  room(@McpParam({ name: 'roomId', description: 'Room name' }) roomId: string): { room: string; messages: ChatMessage[] } {
    return { room: roomId, messages: [...this.history.recent(roomId)] };
  }

  @McpPrompt({ name: 'summarize_room', description: 'Asks the model to summarise the recent conversation of a room' })
  summarize(
    @McpParam({ name: 'roomId', description: 'Room name' }) roomId: string,
    @McpParam({ name: 'style', description: 'bullet points or one paragraph', required: false }) style: string | undefined,
  ): McpMessage[] {
    const lines =
      this.history
        .recent(roomId)
        .map((m) => `${m.user}: ${m.text}`)
        .join('\n') || '(no messages yet)';
    return [
      McpMessage.system(`You summarise chat rooms of the fw demo${style ? `, as ${style}` : ''}.`),
      McpMessage.user(`Summarise the recent conversation in #${roomId}:\n${lines}`),
    ];
  }
}

/** Mounts the demo's MCP server (Streamable HTTP + WebSocket at `/mcp`). */
export async function installMcpDemo(fw: Framework): Promise<void> {
  mountMcpServer(fw, DemoMcpServer);
}
