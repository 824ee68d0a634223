#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ with tsc (tsconfig.build.json), copies the files tsc does not emit, and bundles
// the CLI into dist/bundle/ (scripts/bundle-cli.js).
// Built into a folder beside dist/ and renamed over it, so dist/ is never half old, half new.
//   --if-stale   build only when a source is newer than dist/ (test/global-setup.ts, bench/cli-start.ts)
//   other flags  go to tsc: `--noCheck` emits without type checking (~6 s of CPU against ~20 s); `npm run typecheck` checks.
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCli } from './bundle-cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const ifStale = args.includes('--if-stale');
const tscArgs = args.filter((arg) => arg !== '--if-stale');

/** What dist/ is built from. */
const INPUTS = [
  'src',
  'scripts/build.js',
  'scripts/bundle-cli.js',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
];
/** Written last into dist/: its time is when the build that made dist/ ended. */
const STAMP = join(root, 'dist', '.built');

function newestChange(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  // A folder's own time changes when a file in it is added, removed or renamed.
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestChange(join(path, name))), stat.mtimeMs);
}

function builtAt() {
  try {
    return statSync(STAMP).mtimeMs;
  } catch {
    return 0;
  }
}

if (ifStale && builtAt() >= Math.max(...INPUTS.map((input) => newestChange(join(root, input))))) process.exit(0);

const partial = join(root, `dist.partial-${process.pid}`);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(partial, { recursive: true, force: true });
const result = spawnSync(
  process.execPath,
  [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', partial, ...tscArgs],
  { stdio: 'inherit' },
);
if (result.status !== 0) {
  rmSync(partial, { recursive: true, force: true });
  process.exit(result.status ?? 1);
}
// Read at run time beside the module that reads it (src/ops/report-html.ts).
cpSync(join(root, 'src/ops/report-charts.js'), join(partial, 'ops/report-charts.js'));
await bundleCli(partial);
writeFileSync(join(partial, '.built'), `${new Date().toISOString()}\n`);
rmSync(join(root, 'dist'), { recursive: true, force: true });
renameSync(partial, join(root, 'dist'));
