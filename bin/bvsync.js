#!/usr/bin/env -S node --max-old-space-size=192
// Runs the TypeScript sources through tsx so the command works right after `npm ci`, with no build step.
// The heap flag above (and in the Dockerfile's entry point) caps V8's old space: the live heap stays under ~100 MB,
// and uncapped V8 lets garbage grow it to ~230 MB, which with DuckDB's budget passes 400 MB (docs/operations.md,
// "Sizing a container"). `node bin/bvsync.js` ignores this line: pass NODE_OPTIONS=--max-old-space-size=192 there.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
