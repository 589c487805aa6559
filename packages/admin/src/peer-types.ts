/**
 * Types of the optional modules' admin views, imported as types only so that `@fw/admin` runs
 * without `@fw/mcp` and `@fw/agent` installed.
 */
export type * from '../../mcp/dist/src/admin-view.js';
export type * from '../../agent/dist/src/admin-view.js';
