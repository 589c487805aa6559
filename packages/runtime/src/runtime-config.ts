import type { ConfigSchema } from './config.js';

/** The runtime's configuration keys. Each is documented in docs/configuration.md. */
export const RUNTIME_CONFIG: ConfigSchema = {
  'fw.path': { type: 'string', default: '/fw', description: 'Framework path under which real-time handlers are mounted' },
  'fw.port': { type: 'number', default: 8080, description: 'Port used by fw.listen() when none is given' },
  'fw.host': { type: 'string', default: '127.0.0.1', description: 'Host used by fw.listen() when none is given' },
  'fw.modules.autoload': { type: 'boolean', default: true, description: 'Configure installed fw modules (@fw/mcp, @fw/agent, @fw/admin, @fw/redis) automatically' },
};
