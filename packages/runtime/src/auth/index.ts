export { AuthenticationError, bearerCredential, chainAuthenticators, type AuthContext, type Authenticator } from './authenticator.js';
export { BUILTIN_ROLES, hasRole, highestRole, type BuiltinRole } from './roles.js';
export { parseTokenEntries, staticTokens, type StaticToken } from './static-tokens.js';
export { MIN_TOKEN_LENGTH, tokenFromConfig, tokenWeakness } from './token-strength.js';
export { jwtBearer, KeysUnavailableError, type JwtOptions } from './jwt.js';
export { AUTH_CONFIG, AUTHENTICATOR_SERVICE, authenticationSchemes, frameworkAuthenticator } from './config.js';
export { Credentials, expiryOf, type CredentialEnd } from './credentials.js';
