/** The parts an fw app is made of; the scaffolder asks for each or takes a flag. */
export const PARTS = ['realtime', 'mcp', 'agents', 'admin', 'cluster'] as const;
export type Part = (typeof PARTS)[number];

export interface PartInfo {
  /** The question asked interactively. */
  question: string;
  /** The fw packages the part's code imports. */
  packages: readonly string[];
  /** Chosen by `--yes` and offered as the answer to Enter. */
  byDefault: boolean;
}

export const PART_INFO: Readonly<Record<Part, PartInfo>> = {
  realtime: { question: 'Real-time handlers (WebSocket, SSE, long-polling)?', packages: [], byDefault: true },
  mcp: { question: 'An MCP server (tools for AI assistants at /mcp)?', packages: ['@fw/mcp'], byDefault: true },
  agents: { question: 'Agents (A2A, AG-UI and MCP endpoints, a journal)?', packages: ['@fw/agent'], byDefault: false },
  admin: { question: 'The admin plane (dashboard at /fw/admin/, REST API)?', packages: ['@fw/admin'], byDefault: true },
  cluster: {
    question: 'Cluster mode on Redis (stays single-node until fw.cluster.redis-url is set)?',
    packages: ['@fw/redis'],
    byDefault: false,
  },
};

/** The fw packages an app with `parts` depends on: always the runtime, then each part's. */
export function packagesFor(parts: ReadonlySet<Part>): string[] {
  return ['@fw/runtime', ...PARTS.filter((p) => parts.has(p)).flatMap((p) => PART_INFO[p].packages)];
}

/** What a test of the app needs besides: the Node client, to talk to the real-time handler. */
export function devPackagesFor(parts: ReadonlySet<Part>): string[] {
  return parts.has('realtime') ? ['@fw/client'] : [];
}
