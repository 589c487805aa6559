/** Small in-memory doubles of the runtime, agent and MCP views, for tests of the admin plane alone. */
import {
  NotFoundError,
  FwError,
  type BroadcasterInfo,
  type ResourceInfo,
  type RuntimeView,
  type ResourceQuery,
  type RuntimeStats,
} from '@fw/runtime';
import type { AgentAdminView, McpAdminView, TaskInfo } from '../dist/peer-types.js';

export interface FakeResource extends ResourceInfo {
  received: (string | object)[];
  closedWith?: string;
}

export class FakeRuntime implements RuntimeView {
  bmap = new Map<string, BroadcasterInfo>();
  rmap = new Map<string, FakeResource>();

  addResource(uuid: string, broadcaster: string, transport: ResourceInfo['transport'] = 'websocket'): FakeResource {
    if (!this.bmap.has(broadcaster)) {
      this.bmap.set(broadcaster, {
        id: broadcaster,
        resourceCount: 0,
        createdAt: new Date().toISOString(),
        internal: false,
        messages: 0,
        replayCacheSize: 0,
        lost: 0,
        recovered: 0,
        replayWindow: null,
      });
    }
    this.bmap.get(broadcaster)!.resourceCount++;
    const r: FakeResource = {
      uuid,
      transport,
      protocol: 'raw',
      path: broadcaster,
      broadcasters: [broadcaster],
      broadcaster,
      remoteAddress: '127.0.0.1',
      connectedAt: new Date().toISOString(),
      principal: null,
      messagesIn: 0,
      messagesOut: 0,
      dropped: 0,
      received: [],
    };
    this.rmap.set(uuid, r);
    return r;
  }

  close(): void {}
  stats(): RuntimeStats {
    return {
      connections: this.rmap.size,
      broadcasters: this.bmap.size,
      handlers: 1,
      interceptors: 2,
      messagesIn: 0,
      messagesOut: 0,
      broadcasts: 0,
      dropped: 0,
      slowConsumerDisconnects: 0,
      startedAt: new Date(Date.now() - 5000).toISOString(),
    };
  }
  listBroadcasters(): BroadcasterInfo[] {
    return [...this.bmap.values()];
  }
  getBroadcaster(id: string): BroadcasterInfo | undefined {
    return this.bmap.get(id);
  }
  listResources(q: ResourceQuery = {}) {
    let all = [...this.rmap.values()];
    if (q.broadcaster) all = all.filter((r) => r.broadcasters.includes(q.broadcaster!));
    if (q.transport) all = all.filter((r) => r.transport === q.transport);
    if (q.search) all = all.filter((r) => r.uuid.includes(q.search!) || r.path.includes(q.search!));
    const offset = q.offset ?? 0;
    const limit = q.limit ?? 100;
    return { items: all.slice(offset, offset + limit).map(strip), total: all.length, offset, limit };
  }
  getResource(uuid: string): ResourceInfo | undefined {
    const r = this.rmap.get(uuid);
    return r && strip(r);
  }
  listHandlers() {
    return [{ path: '/fw/chat/{room}', interceptors: ['heartbeat'], description: 'chat', resourceCount: this.rmap.size }];
  }
  listInterceptors() {
    return [
      { name: 'heartbeat', scope: 'global' as const, handler: null, order: 0 },
      { name: 'origin', scope: 'global' as const, handler: null, order: 1 },
    ];
  }
  broadcast(id: string, message: string | object): number {
    if (!this.bmap.has(id)) throw new NotFoundError('broadcaster', id);
    let n = 0;
    for (const r of this.rmap.values())
      if (r.broadcasters.includes(id)) {
        r.received.push(message);
        n++;
      }
    return n;
  }
  unicast(uuid: string, message: string | object): void {
    const r = this.rmap.get(uuid);
    if (!r) throw new NotFoundError('resource', uuid);
    r.received.push(message);
  }
  destroyBroadcaster(id: string): number {
    if (!this.bmap.delete(id)) throw new NotFoundError('broadcaster', id);
    let n = 0;
    for (const r of [...this.rmap.values()])
      if (r.broadcasters.includes(id)) {
        r.closedWith = 'destroyed';
        this.rmap.delete(r.uuid);
        n++;
      }
    return n;
  }
  disconnect(uuid: string, reason?: string): void {
    const r = this.rmap.get(uuid);
    if (!r) throw new NotFoundError('resource', uuid);
    r.closedWith = reason ?? '';
    this.rmap.delete(uuid);
  }
}

function strip(r: FakeResource): ResourceInfo {
  const { received: _r, closedWith: _c, ...info } = r;
  return info;
}

export function fakeAgent(): AgentAdminView & { taskList: TaskInfo[] } {
  const now = new Date().toISOString();
  const taskList: TaskInfo[] = [{ id: 't1', contextId: 'c1', agentName: 'research', state: 'working', createdAt: now, updatedAt: now }];
  const journal = [
    {
      seq: 1,
      eventId: 'e1',
      parentEventId: null,
      kind: 'dispatch' as const,
      coordinationId: 'co-1',
      coordinator: 'boss',
      agent: 'research',
      skill: 'search',
      timestamp: now,
    },
    {
      seq: 2,
      eventId: 'e2',
      parentEventId: 'e1',
      kind: 'completion' as const,
      coordinationId: 'co-1',
      coordinator: 'boss',
      agent: 'research',
      skill: 'search',
      timestamp: now,
      durationMs: 12,
    },
    {
      seq: 3,
      eventId: 'e3',
      parentEventId: null,
      kind: 'dispatch' as const,
      coordinationId: 'co-2',
      coordinator: 'boss',
      agent: 'writer',
      skill: 'write',
      timestamp: now,
    },
  ];
  return {
    taskList,
    agents: () => [
      {
        name: 'research',
        version: '1.0.0',
        description: '',
        path: '/fw/agent/research',
        headless: false,
        kind: 'agent',
        protocols: ['a2a', 'mcp'],
        activeSessions: 1,
      },
      {
        name: 'boss',
        version: '2.0.0',
        description: '',
        path: '/fw/agent/boss',
        headless: true,
        kind: 'coordinator',
        protocols: ['a2a'],
        activeSessions: 0,
        fleet: ['research'],
      },
    ],
    agent(name) {
      return this.agents().find((a) => a.name === name);
    },
    sessions: (agentName) =>
      [{ id: 's1', agentName: 'research', resourceUuid: null, startedAt: now, lastActivityAt: now, messageCount: 3 }].filter(
        (s) => !agentName || s.agentName === agentName,
      ),
    coordinators: () => [{ name: 'boss', version: '2.0.0', path: '/fw/agent/boss', fleet: [{ name: 'research', location: 'local' }] }],
    journal: (q = {}) =>
      journal.filter((e) => (!q.coordinationId || e.coordinationId === q.coordinationId) && (!q.agent || e.agent === q.agent)),
    journalLog: (id) =>
      journal.some((e) => e.coordinationId === id)
        ? journal
            .filter((e) => e.coordinationId === id)
            .map((e) => `${e.kind} ${e.agent}`)
            .join('\n')
        : undefined,
    journalGraph: (id) =>
      id === 'co-1'
        ? {
            coordinationId: id,
            nodes: [
              { id: 'boss', kind: 'coordinator' },
              { id: 'research', kind: 'agent' },
            ],
            edges: [{ from: 'boss', to: 'research', kind: 'dispatch', count: 1, failures: 0, totalDurationMs: 12, outcome: 'success' }],
          }
        : undefined,
    tasks: (q = {}) => taskList.filter((t) => (!q.agentName || t.agentName === q.agentName) && (!q.state || t.state === q.state)),
    task: (id) => taskList.find((t) => t.id === id),
    cancelTask: async (id) => {
      const t = taskList.find((x) => x.id === id);
      if (!t) throw new NotFoundError('task', id);
      if (t.state !== 'working') throw new FwError('task_not_cancelable', `task ${id} is ${t.state}`, 409);
      t.state = 'canceled';
      return t;
    },
    runtimes: () => [{ name: 'offline', priority: 0, available: true, active: true, capabilities: ['text'], models: ['echo'] }],
    activeRuntime: () => ({ name: 'offline', priority: 0, available: true, active: true, capabilities: ['text'], models: ['echo'] }),
  };
}

export function fakeMcp(): McpAdminView {
  const now = new Date().toISOString();
  return {
    servers: () => [{ name: 'demo', version: '1.0.0', path: '/mcp', sessions: 1 }],
    tools: () => [{ name: 'echo', description: 'echo', inputSchema: {}, origin: 'decorated', server: '/mcp' }],
    resources: () => [
      { uri: 'fw://rooms', name: 'rooms', description: '', mimeType: 'text/plain', template: false, origin: 'decorated', server: '/mcp' },
    ],
    prompts: () => [{ name: 'greet', description: '', arguments: [], origin: 'programmatic', server: null }],
    sessions: () => [
      {
        id: 'm1',
        server: '/mcp',
        transport: 'streamable-http',
        protocolVersion: '2025-03-26',
        clientName: 'x',
        clientVersion: '1',
        principal: null,
        createdAt: now,
        lastActivityAt: now,
        requests: 2,
      },
    ],
    pendingBridgeCalls: () => [{ id: 'b1', resourceUuid: 'r1', toolName: 'ask', startedAt: now, timeoutMs: 30000 }],
    tasks: () => [],
    cancelTask: () => undefined,
  };
}
