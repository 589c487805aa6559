export { waitFor, type WaitOptions } from './wait-for.js';
export { record, audit, assertAudit, type Delivery, type RecordableClient, type AuditResult } from './chaos-audit.js';
export { createTestDatabase, PG_ADMIN_URL, type TestDatabase } from './postgres.js';
export { JsonFuzzer, seededRandom, type Json, type JsonFuzzerOptions } from './fuzz.js';
export { hidePackages } from './absent-packages.js';
export { startJwtIssuer, type JwtIssuer } from './jwt-issuer.js';
export { upgradeRequest, uncaughtExceptions } from './raw-client.js';
