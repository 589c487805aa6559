export { main, parseArgs, USAGE } from './cli.js';
export { generate, checkPackageName, type AppPlan } from './generate.js';
export { PARTS, PART_INFO, packagesFor, type Part } from './parts.js';
export { readTarballs, closure, type Tarball } from './tarballs.js';
export { COMPILER_OPTIONS } from './templates/tsconfig.js';
export { TOOL_VERSIONS, type PackageSource } from './templates/package-json.js';
