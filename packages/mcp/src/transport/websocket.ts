import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  FwError,
  jsonDepthExceeds,
  type Lease,
  type NativeSocket,
  type NativeWebSocketRoute,
  rejectUpgrade,
  whenClosed,
} from '@fw/runtime';
import { WebSocketServer, type WebSocket } from 'ws';
import { credentialEndReason } from '../credential-end.js';
import type { McpEndpoint } from '../endpoint.js';
import { RpcCode } from '../errors.js';
import { allowsBatches } from '../protocol/dispatcher.js';
import { classify, errorResponse, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
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
  /** The RFC 9728 metadata URL a socket's scope refusals name (OAuth endpoints only). */
  private readonly resourceMetadata = new WeakMap<McpSession, string>();
  /** Sockets served natively (Bun), ended with the transport. */
  private readonly natives = new Set<NativeSocket>();

  constructor(private readonly endpoint: McpEndpoint) {
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: endpoint.limits.maxBody,
      maxFragments: endpoint.limits.maxFragments,
      perMessageDeflate: false,
      handleProtocols: (protocols) => (protocols.has(MCP_SUBPROTOCOL) ? MCP_SUBPROTOCOL : false),
    });
  }

  /**
   * Everything checked before the 101, on Node (`handleUpgrade`) and on a server with native
   * WebSockets (`native`, Bun): the subprotocol, access and the principal, and the session's
   * place in `fw.mcp.max-sessions*`. An FwError is the refusal the client reads.
   */
  private async admit(req: IncomingMessage): Promise<Admitted | FwError> {
    // Host and Origin were checked by the framework before the handshake (DNS-rebinding protection).
    const offered = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (offered.length > 0 && !offered.includes(MCP_SUBPROTOCOL)) {
      return new FwError('mcp_subprotocol_required', `the MCP WebSocket endpoint speaks the subprotocol '${MCP_SUBPROTOCOL}'`, 400);
    }
    let principal;
    try {
      // A browser cannot set headers on a WebSocket: `?access_token=` counts here (context.socket).
      await this.endpoint.checkAccess(req, { socket: true });
      principal = await this.endpoint.resolvePrincipal(req, { socket: true });
    } catch (err) {
      // A 401/403 carries its challenge (an OAuth endpoint's names its metadata), so a client learns it from the handshake too.
      return err instanceof FwError ? err : new FwError('internal_error', 'principal resolution failed', 500);
    }
    const address = this.endpoint.clientAddress(req);
    // Admission right before the (synchronous) upgrade and registration: no cap can be overshot.
    const { lease, refusal } = this.endpoint.admit({ principal, address });
    if (refusal)
      return new FwError(refusal.code, refusal.detail, refusal.status, undefined, { 'retry-after': String(refusal.retryAfterSeconds) });
    return {
      principal,
      address,
      lease,
      metadataUrl: this.endpoint.oauth?.metadataUrl(req),
      protocol: offered.length > 0 ? MCP_SUBPROTOCOL : undefined,
    };
  }

  handleUpgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    const admitted = await this.admit(req);
    if (admitted instanceof FwError) return rejectUpgrade(socket, admitted.status, admitted.code, admitted.message, admitted.headers);
    // A handshake `ws` refuses (a bad key, a dropped socket) never reaches `connected`: the share goes back.
    let adopted = false;
    whenClosed(socket, () => {
      if (!adopted) admitted.lease.release();
    });
    // The client left while it was admitted (its share went back just now).
    if (socket.destroyed) return;
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      adopted = true;
      this.connected(wsSocket(ws), admitted);
    });
  };

  /**
   * The same endpoint on a server with its own WebSockets (`Bun.serve`, docs/bun.md): admitted as
   * above, then served on the server's socket. The server bounds a message by its own limit
   * (`fw.websocket.max-payload`); `fw.mcp.max-body` is enforced here when it is the smaller.
   */
  readonly native: NativeWebSocketRoute<Admitted> = {
    admit: async (req) => {
      const admitted = await this.admit(req);
      return admitted instanceof FwError ? admitted : { admitted, protocol: admitted.protocol };
    },
    opened: (socket, admitted) => {
      this.natives.add(socket);
      this.connected(socket, admitted, this.endpoint.limits.maxBody);
    },
    abandoned: (admitted) => admitted.lease.release(),
  };

  /**
   * One session per socket, for as long as it is open. `maxBytes`: a bound on each message the
   * socket itself did not enforce (a native socket's server has one limit for every route).
   */
  private connected(socket: NativeSocket, admitted: Admitted, maxBytes?: number): void {
    const { principal, address, lease, metadataUrl } = admitted;
    const send = (message: JsonRpcMessage | JsonRpcResponse[]): boolean => {
      if (!socket.isOpen) return false;
      socket.send(JSON.stringify(message));
      return true;
    };
    const session = new McpSession(this.endpoint.path, 'websocket', principal, (m) => send(m), address);
    if (metadataUrl !== undefined) this.resourceMetadata.set(session, metadataUrl);
    // The credential is checked once, at the handshake: the socket must not outlive it (its
    // expiry, or an operator's fw.credentials.revoke). 1008: policy violation, with the reason.
    const stopWatching = this.endpoint.fw.credentials.watch(principal, (reason) => socket.close(1008, credentialEndReason(reason)));
    // Requests with the 2026-07-28 _meta envelope on a socket that sent no initialize are served statelessly.
    const modern = new ModernMessageChannel(this.endpoint, principal, address, (m) => send(m));
    this.modern.set(session, modern);
    let alive = true;
    socket.onPong = () => {
      alive = true;
    };
    const dropKeepAlive = this.endpoint.addKeepAlive({
      keepAlive: () => {
        if (!alive) return socket.terminate();
        alive = false;
        socket.ping();
      },
    });
    this.endpoint.add({
      session,
      lease,
      close: () => {
        dropKeepAlive();
        socket.close(1001, 'session ended');
      },
    });
    socket.onClose = () => {
      this.natives.delete(socket);
      stopWatching();
      dropKeepAlive();
      modern.close();
      this.modern.delete(session);
      this.endpoint.end(session.id, 'socket closed');
    };
    socket.onMessage = (text) => {
      alive = true;
      if (maxBytes !== undefined && text.length * 3 > maxBytes && Buffer.byteLength(text) > maxBytes) {
        socket.close(1009, 'message too big (fw.mcp.max-body)');
        return;
      }
      void this.onMessage(session, text, send);
    };
  }

  private async onMessage(session: McpSession, text: string, send: (m: JsonRpcMessage | JsonRpcResponse[]) => boolean): Promise<void> {
    if (jsonDepthExceeds(text, this.endpoint.limits.jsonDepth)) {
      send(
        errorResponse(
          null,
          RpcCode.InvalidRequest,
          `the message nests deeper than ${this.endpoint.limits.jsonDepth} levels (fw.limits.json-depth)`,
        ),
      );
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
      send(
        errorResponse(
          null,
          RpcCode.InvalidRequest,
          items.length === 0 ? 'empty batch' : `JSON-RPC batches are not part of protocol version ${session.protocolVersion}`,
        ),
      );
      return;
    }
    const protocol = this.endpoint.protocol;
    const answers = await Promise.all(
      items.map(async (item): Promise<JsonRpcResponse | undefined> => {
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
          case 'request': {
            const denied = this.scopeRefusal(session, c.msg);
            if (denied) return denied;
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
        }
      }),
    );
    const out = answers.filter((a): a is JsonRpcResponse => a !== undefined);
    if (out.length === 0) return;
    send(batch ? out : (out[0] as JsonRpcResponse));
  }

  /**
   * OAuth: a tools/call the socket's token has no scope for. A socket has no HTTP status per
   * message, so the 403 travels as a JSON-RPC error whose data carries the status, the RFC 6750
   * error, the scopes needed and the metadata URL; the client gets a token with those scopes and
   * opens a new socket with it.
   */
  private scopeRefusal(session: McpSession, msg: JsonRpcRequest): JsonRpcResponse | undefined {
    const oauth = this.endpoint.oauth;
    if (!oauth || msg.method !== 'tools/call' || typeof msg.params?.name !== 'string') return undefined;
    const metadataUrl = this.resourceMetadata.get(session);
    const refusal = oauth.toolRefusal(undefined, session.principal, msg.params.name, metadataUrl);
    if (!refusal) return undefined;
    return errorResponse(msg.id, RpcCode.ServerError, refusal.message, {
      status: 403,
      error: 'insufficient_scope',
      scope: refusal.scopes.join(' '),
      resource_metadata: metadataUrl,
      www_authenticate: refusal.challenge,
    });
  }

  close(): void {
    for (const ws of this.wss.clients) ws.terminate();
    for (const socket of this.natives) socket.terminate();
    this.natives.clear();
    this.wss.close();
  }
}

/** A session's admission, kept from the handshake to the open socket. */
interface Admitted {
  principal: McpSession['principal'];
  address: string | undefined;
  lease: Lease;
  metadataUrl: string | undefined;
  /** The subprotocol the 101 names (`mcp`, when the client offered it). */
  protocol: string | undefined;
}

/** A `ws` socket as a NativeSocket (what the transport runs a session on): its events become the three callbacks. */
function wsSocket(ws: WebSocket): NativeSocket {
  const socket: NativeSocket = {
    get isOpen() {
      return ws.readyState === ws.OPEN;
    },
    send: (text) => ws.send(text),
    ping: () => ws.ping(),
    close: (code, reason) => {
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
    },
    terminate: () => ws.terminate(),
    onMessage: undefined,
    onPong: undefined,
    onClose: undefined,
  };
  ws.on('pong', () => socket.onPong?.());
  ws.on('close', (code) => socket.onClose?.(code));
  ws.on('error', () => ws.terminate());
  ws.on('message', (data, isBinary) =>
    socket.onMessage?.(isBinary ? Buffer.from(data as Buffer).toString('utf8') : (data as Buffer).toString()),
  );
  return socket;
}
