// Bundles the compiled CLI (dist/cli/main.js) and the fetch thread into dist/bundle/, which bin/bvsync.js runs: one
// chunk per lazily imported command instead of ~575 modules to resolve and read at each start. Run by scripts/build.js.
import { cpSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Packages of many small modules, plain JavaScript with no files of their own read at run time, inlined with what they
 * import: bullmq alone is 177 files to read at each start. bullmq, ioredis and @bull-board/api go in together, so
 * each class has one copy for `instanceof` to check. The rest stay in node_modules: worker-thread entries (pino),
 * packages that read their own files (@bull-board/ui), and native bindings (msgpackr's is optional).
 */
const INLINED = new Set([
  '@duckdb/node-api',
  'zod',
  'cron-parser',
  'commander',
  'cli-table3',
  'bullmq',
  'ioredis',
  '@bull-board/api',
]);
const NATIVE = /^(@duckdb\/node-bindings|msgpackr-extract)/;

function packageOf(path) {
  const parts = path.split('/');
  return path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const NODE_MODULES = fileURLToPath(new URL('../node_modules/', import.meta.url));

/**
 * Whether node loads the package as CommonJS. The bundle require()s those: imported from ESM, node would first lex
 * each module for its named exports, some 100 ms of CPU for bullmq at each start (docs/performance.md).
 */
function isCommonJs(name) {
  if (isBuiltin(name)) return false;
  const manifest = JSON.parse(readFileSync(join(NODE_MODULES, name, 'package.json'), 'utf8'));
  return manifest.type !== 'module' && !manifest.exports?.['.']?.import;
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
            if (args.kind !== 'require-call' && isCommonJs(packageOf(args.path))) {
              return { path: args.path, namespace: 'required' };
            }
            return { path: args.path, external: true };
          });
          // zod re-exports every locale as `z.locales`, half of its bundled code; bvsync uses none (English is built in).
          plugin.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
            args.importer.includes('/node_modules/zod/') ? { path: 'zod-locales', namespace: 'unused' } : undefined,
          );
          plugin.onLoad({ filter: /.*/, namespace: 'unused' }, () => ({ contents: '', loader: 'js' }));
          // The stand-in an import of a CommonJS package gets: its require() is left outside, as above.
          plugin.onLoad({ filter: /.*/, namespace: 'required' }, (args) => ({
            contents: `module.exports = require(${JSON.stringify(args.path)});`,
            loader: 'js',
          }));
        },
      },
    ],
  });
  // Read at run time beside the module that reads it (src/ops/report-html.ts).
  cpSync(join(dist, 'ops/report-charts.js'), join(out, 'report-charts.js'));
}
