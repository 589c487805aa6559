/**
 * `GET /demo/agents`: the agents the chat page offers — every agent that serves AG-UI, with its
 * description and its AG-UI path. Public like the agent cards it summarises.
 */
import { sendJson, type Framework } from '@fw/runtime';

export interface PageAgent {
  name: string;
  description: string;
  kind: 'agent' | 'coordinator';
  agui: string;
}

export function installAgentsRoute(fw: Framework): void {
  fw.route('GET', '/demo/agents', (_req, res) => {
    const view = fw.services.get('agent');
    const agents: PageAgent[] = (view?.agents() ?? [])
      .filter((a) => a.protocols.includes('agui'))
      .map((a) => ({ name: a.name, description: a.description, kind: a.kind, agui: `${a.path}/agui` }));
    sendJson(res, 200, { agents }, { 'cache-control': 'no-store' });
  });
}
