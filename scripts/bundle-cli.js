// Bundles the compiled CLI (dist/cli/main.js) and the fetch thread into dist/bundle/, which bin/bvsync.js runs: one
// chunk per lazily imported command instead of ~575 modules to resolve and read at each start. Run by scripts/build.js.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * Packages of many small modules, plain JavaScript with no files of their own read at run time, inlined with what they
 * import. The rest stay in node_modules: worker-thread entries (pino), Lua scripts (bullmq), and ioredis, which BullMQ
 * shares. Native bindings always stay outside.
 */
const INLINED = new Set(['@duckdb/node-api', 'zod', 'cron-parser', 'commander', 'cli-table3']);
const NATIVE = /^@duckdb\/node-bindings/;

function packageOf(path) {
  const parts = path.split('/');
  return path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Writes `<dist>/bundle/` from the modules tsc emitted into `dist`. */
export async function bundleCli(dist) {
  const out = join(dist, 'bundle');
  await build({
    entryPoints: { main: join(dist, 'cli/main.js'), 'fetch-thread': join(dist, 'engine/fetch/fetch-thread.js') },
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    // The inlined CommonJS packages require() the packages left outside, as node would from this folder.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    plugins: [
      {
        name: 'leave-packages-outside',
        setup(plugin) {
          // An inlined package's own imports are inlined too: from dist/bundle/, node would find whichever copy of
          // them sits at the top of node_modules, not the one the package was installed with.
          plugin.onResolve({ filter: /^[^./]/ }, (args) => {
            if (NATIVE.test(args.path)) return { path: args.path, external: true };
            if (args.importer.includes('/node_modules/') || INLINED.has(packageOf(args.path))) return undefined;
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  // Read at run time beside the module that reads it (src/ops/report-html.ts).
  cpSync(join(dist, 'ops/report-charts.js'), join(out, 'report-charts.js'));
}
