/**
 * Where the client reports what it cannot throw at anyone: an application listener that threw.
 * The shape is pino's error method (`error(fields, message)`), so a server-side pino logger or a
 * browser logging library fits as is.
 */
export interface ClientLogger {
  error(fields: object, message?: string): void;
}

/** The default: the console (the browser's developer tools; stderr under Node). */
export const consoleLogger: ClientLogger = {
  error: (fields, message) => console.error(`fw client: ${message ?? ''}`, fields),
};
