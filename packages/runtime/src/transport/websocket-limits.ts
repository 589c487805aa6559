import { ConfigError, type Config } from '../config.js';

/**
 * `fw.websocket.max-fragments`, checked: the number of frames one client message may span on
 * every fw WebSocket endpoint (the real-time transport and MCP's), given to `ws` as `maxFragments`.
 * A client that splits one message into more frames is closed with 1008 before they pile up:
 * each fragment is a Buffer `ws` keeps until the last one, so a flood of empty or one-byte
 * fragments costs memory far beyond the payload cap. There is no "no limit" value.
 */
export function websocketMaxFragments(config: Config): number {
  const value = config.get('fw.websocket.max-fragments');
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError(`fw.websocket.max-fragments must be a whole number of frames, at least 1; got ${value}`);
  }
  return value;
}
