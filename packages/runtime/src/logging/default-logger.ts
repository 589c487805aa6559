import { pino } from 'pino';
import type { Logger, LogLevel } from './logger.js';

/**
 * fw's logger when the application brings none: pino, one JSON object per line on stdout, at
 * `fw.log.level` (default `info`), every line named `fw`.
 */
export function createDefaultLogger(level: LogLevel): Logger {
  return pino({ name: 'fw', level });
}

let fallback: Logger | undefined;

/**
 * For parts used without a Framework (a bare `Config`, `EventBus` or `SecurityPolicy`): the
 * default logger at `info`, created on first use. Inside a Framework they log through `fw.logger`.
 */
export function fallbackLogger(): Logger {
  return (fallback ??= createDefaultLogger('info'));
}
