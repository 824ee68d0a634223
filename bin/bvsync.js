#!/usr/bin/env -S node --max-old-space-size=192 --max-semi-space-size=8
// Runs the compiled CLI, bundled (dist/bundle/, built by `npm run build`, which `npm ci` runs through `prepare`).
// The heap flags above (and in the Dockerfile's entry point) cap V8's old space: the live heap stays under ~100 MB,
// and uncapped V8 lets garbage grow it to ~230 MB, which with DuckDB's budget passes 400 MB; and its young generation,
// whose default semi-spaces kept ~25 MB more resident for ~6 % less CPU (docs/operations.md, "Sizing a container").
// `node bin/bvsync.js` ignores this line: pass NODE_OPTIONS='--max-old-space-size=192 --max-semi-space-size=8' there.
try {
  await import('../dist/bundle/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('/dist/bundle/main.js')) throw error;
  process.stderr.write('bvsync: dist/ is missing: run `npm run build` in the bvsync folder (`npm ci` runs it)\n');
  process.exit(1);
}
