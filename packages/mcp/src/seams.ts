import type { McpAdminView } from './admin-view.js';

/**
 * What `@fw/mcp` adds to the kernel's service map: its read view as the service `'mcp'`, so
 * `fw.services.get('mcp')` is typed. It consumes the kernel's `'principal-resolver'` and
 * `'client-address'` services.
 */
declare module '@fw/runtime' {
  interface FwServices {
    mcp: McpAdminView;
  }
}

export {};
