#!/usr/bin/env node
// The docs test is compiled to dist/ by the build; this launcher exists before it (see the
// package's bin). Usage: fw-docs-test [file.md …]   (default: README.md and docs/*.md)
import '../dist/bin/docs-test.js';
