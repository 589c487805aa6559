/** A configuration value fw cannot use; its message names the key and where the value came from. */
export class ConfigError extends Error {
  readonly code = 'invalid_config';
}
