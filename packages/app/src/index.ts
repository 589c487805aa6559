export { createApp, type AppOptions } from './create-app.js';
export { FW_MODULES, type KnownModule } from './modules.js';
