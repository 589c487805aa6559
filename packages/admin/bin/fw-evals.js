#!/usr/bin/env node
// The command itself is compiled to dist/ by the build. This launcher is plain JavaScript that
// exists before any build, so that npm links the `fw-evals` bin at install time (it skips a bin
// whose file is missing, which a workspace checkout's dist/ is until it is built).
import '../dist/bin/evals.js';
