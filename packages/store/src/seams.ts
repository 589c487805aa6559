import type { FwStore } from './store.js';

/** What `@fw/store` adds to the kernel's service map: the framework's open store as `'store'`. */
declare module '@fw/runtime' {
  interface FwServices {
    store: FwStore;
  }
}

export {};
