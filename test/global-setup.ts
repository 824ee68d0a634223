import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Before the integration tests: builds dist/ when a source is newer than it (scripts/build.js --if-stale), so the tests
 * that spawn bin/bvsync.js run the compiled code a user runs, never a stale build of older sources. Emits without type
 * checking (`--noCheck`); `npm run typecheck` checks. test/e2e/package.int.test.ts packs and runs what this built.
 */
export default function buildWhenStale(): void {
  const repo = join(import.meta.dirname, '..');
  const result = spawnSync(process.execPath, [join(repo, 'scripts', 'build.js'), '--if-stale', '--noCheck'], {
    cwd: repo,
    stdio: 'inherit',
  });
  if (result.status !== 0)
    throw new Error(`the build of dist/ failed (exit ${result.status}): bin/bvsync.js would run no code or stale code`);
}
