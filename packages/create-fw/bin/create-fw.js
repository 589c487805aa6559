#!/usr/bin/env node
// The scaffolder itself is compiled to dist/ by the build. This launcher is plain JavaScript that
// exists before any build, so that npm links the `create-fw` bin at install time.
import { main } from '../dist/cli.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(err);
    process.exitCode = 1;
  },
);
