import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/support/slow-first.js';

// Two kinds of test, named by suffix: *.test.ts is pure logic, *.int.test.ts talks to real Redis, real
// DuckDB files and the simulator. Each integration file uses its own queue prefix and temp folder, so
// files may run in parallel.
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.int.test.ts'],
          // One process for every unit file, each with fresh src/ modules (test/support/fresh-modules.ts): no leak of
          // module state, shown by passing under `--sequence.shuffle.files`.
          isolate: false,
          setupFiles: ['test/support/fresh-modules.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.int.test.ts'],
          // Many spawn bin/bvsync.js, which runs dist/: built first whenever a source is newer (test/global-setup.ts).
          globalSetup: ['test/global-setup.ts'],
          // As the unit files: one process runs many files, each with fresh src/ modules; a fork per file cost a second.
          isolate: false,
          setupFiles: ['test/support/fresh-modules.ts'],
          // Room for a box at load 25 on 2 cores, where a fixture's backfill passed 60 s (test/ops/report.int.test.ts):
          // a passing test takes no longer for it, and each wait inside names what it waited for.
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
    pool: 'forks',
    // The slowest files first, so none is left to run alone at the end (test/durations.json).
    sequence: { sequencer: SlowFirstSequencer },
    // Most integration files wait on simulated latency, rate limits, lease timeouts and child processes rather than
    // the CPU: four files at once keep the 2-core box busy (docs/performance.md, "The test suite").
    maxWorkers: 4,
    testTimeout: 10_000,
  },
});
