import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Writes test/durations.json, which test/support/slow-first.ts reads: the seconds of each file that took 10 s or more.
 * A file's time counts its import and its beforeAll/afterAll hooks, where a shared fixture's backfill runs.
 * Run as `npx vitest run --reporter=default --reporter=./test/support/durations-reporter.ts`.
 */
export default class DurationsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const repo = join(import.meta.dirname, '..', '..');
    const seconds = modules
      .map((module) => [relative(repo, module.moduleId).split('\\').join('/'), fileSeconds(module)] as const)
      .filter(([, s]) => s >= 10)
      .sort((a, b) => b[1] - a[1]);
    writeFileSync(join(repo, 'test', 'durations.json'), `${JSON.stringify(Object.fromEntries(seconds), null, 2)}\n`);
  }
}

/** Import, setup files, and every test and hook of the file: the time a worker is busy with it. */
function fileSeconds(module: TestModule): number {
  const d = module.diagnostic();
  return Math.round((d.prepareDuration + d.setupDuration + d.collectDuration + d.duration) / 1000);
}
