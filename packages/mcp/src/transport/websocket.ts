import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { FwError, jsonDepthExceeds, rejectUpgrade } from '@fw/runtime';
import { WebSocketServer, type WebSocket } from 'ws';
import type { McpEndpoint } from '../endpoint.js';
import { RpcCode } from '../errors.js';
import { allowsBatches } from '../protocol/dispatcher.js';
import { classify, errorResponse, type JsonRpcMessage, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { McpSession } from '../protocol/session.js';
import { hasModernEnvelope } from '../modern/era.js';
import { ModernMessageChannel } from '../modern/message-channel.js';

export const MCP_SUBPROTOCOL = 'mcp';

/**
 * MCP over WebSocket on the same path as Streamable HTTP: subprotocol `mcp`, one JSON-RPC
 * message (or a 2025-03-26 batch) per text frame, one session per socket. The session lives as
 * long as the socket; keep-alive pings find dead peers.
 */
export class WebSocketTransport {
  private readonly wss: WebSocketServer;
  private readonly modern = new WeakMap<McpSession, ModernMessageChannel>();

  constructor(private readonly endpoint: McpEndpoint) {
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: endpoint.limits.maxBody,
      perMessageDeflate: false,
      handleProtocols: (protocols) => (protocols.has(MCP_SUBPROTOCOL) ? MCP_SUBPROTOCOL : false),
    });
  }

  handleUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    // Host and Origin were checked by the framework before the handshake (DNS-rebinding protection).
    const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    if (offered.length > 0 && !offered.includes(MCP_SUBPROTOCOL)) {
      return rejectUpgrade(socket, 400, 'mcp_subprotocol_required', `the MCP WebSocket endpoint speaks the subprotocol '${MCP_SUBPROTOCOL}'`);
    }
    let principal;
    try {
      await this.endpoint.checkAccess(req);
      principal = await this.endpoint.resolvePrincipal(req);
    } catch (err) {
      const e = err instanceof FwError ? err : new FwError('internal_error', 'principal resolution failed', 500);
      return rejectUpgrade(socket, e.status, e.code, e.message);
    }
    const address = this.endpoint.clientAddress(req);
    // Admission right before the (synchronous) upgrade and registration: no cap can be overshot.
    const full = this.endpoint.admit(address);
    if (full) return rejectUpgrade(socket, full.status, full.code, full.detail);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.connected(ws, principal, address));
  };

  private connected(ws: WebSocket, principal: McpSession['principal'], address: string | undefined): void {
    const send = (message: JsonRpcMessage | JsonRpcResponse[]): boolean => {
      if (ws.readyState !== ws.OPEN) return false;
      ws.send(JSON.stringify(message));
      return true;
    };
    const session = new McpSession(this.endpoint.path, 'websocket', principal, (m) => send(m), address);
    // Requests with the 2026-07-28 _meta envelope on a socket that sent no initialize are served statelessly.
    const modern = new ModernMessageChannel(this.endpoint, principal, address, (m) => send(m));
    this.modern.set(session, modern);
    let alive = true;
    ws.on('pong', () => {
      alive = true;
    });
    const dropKeepAlive = this.endpoint.addKeepAlive({
      keepAlive: () => {
        if (!alive) return ws.terminate();
        alive = false;
        ws.ping();
      },
    });
    this.endpoint.add({
      session,
      close: () => {
        dropKeepAlive();
        if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1001, 'session ended');
      },
    });
    ws.on('close', () => {
      dropKeepAlive();
      modern.close();
      this.modern.delete(session);
      this.endpoint.end(session.id, 'socket closed');
    });
    ws.on('error', () => ws.terminate());
    ws.on('message', (data, isBinary) => {
      alive = true;
      void this.onMessage(session, isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString(), send);
    });
  }

  private async onMessage(session: McpSession, text: string, send: (m: JsonRpcMessage | JsonRpcResponse[]) => boolean): Promise<void> {
    if (jsonDepthExceeds(text, this.endpoint.limits.jsonDepth)) {
      send(errorResponse(null, RpcCode.InvalidRequest, `the message nests deeper than ${this.endpoint.limits.jsonDepth} levels (fw.limits.json-depth)`));
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      send(errorResponse(null, RpcCode.ParseError, `parse error: ${(err as Error).message}`));
      return;
    }
    const batch = Array.isArray(parsed);
    const items = batch ? (parsed as unknown[]) : [parsed];
    if (batch && (items.length === 0 || !allowsBatches(session.protocolVersion))) {
      send(errorResponse(null, RpcCode.InvalidRequest, items.length === 0 ? 'empty batch' : `JSON-RPC batches are not part of protocol version ${session.protocolVersion}`));
      return;
    }
    const protocol = this.endpoint.protocol;
    const answers = await Promise.all(items.map(async (item): Promise<JsonRpcResponse | undefined> => {
      const c = classify(item);
      switch (c.kind) {
        case 'invalid':
          return c.reply;
        case 'notification':
          if (!session.protocolVersion) this.modern.get(session)?.notification(c.msg);
          else protocol.notification(session, c.msg);
          return undefined;
        case 'response':
          protocol.response(session, c.msg);
          return undefined;
        case 'request':
          if (!session.protocolVersion && !batch && hasModernEnvelope(c.msg)) return this.modern.get(session)?.request(c.msg);
          if (c.msg.method === 'initialize') {
            if (batch) return errorResponse(c.msg.id, RpcCode.InvalidRequest, 'initialize must not be part of a batch');
            if (session.protocolVersion) return errorResponse(c.msg.id, RpcCode.InvalidRequest, 'the session is already initialized');
            return protocol.initialize(session, c.msg);
          }
          if (!session.protocolVersion && c.msg.method !== 'ping') {
            return errorResponse(c.msg.id, RpcCode.InvalidRequest, 'send initialize first');
          }
          return protocol.request(session, c.msg);
      }
    }));
    const out = answers.filter((a): a is JsonRpcResponse => a !== undefined);
    if (out.length === 0) return;
    send(batch ? out : (out[0] as JsonRpcResponse));
  }

  close(): void {
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
  }
}
