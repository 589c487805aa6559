export { checkDocs, summary, type CheckOptions, type Report } from './check-docs.js';
export { extractBlocks, MarkerError, type CodeBlock, type Language } from './markdown.js';
export { parseMarker, type Marker } from './markers.js';
export { formatFailure, type Failure } from './failure.js';
