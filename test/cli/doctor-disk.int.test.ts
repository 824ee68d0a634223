import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { TEST_REDIS_URL } from '../support/redis.js';
import { tempDir } from '../support/tmp.js';

const BIN = resolve(import.meta.dirname, '../../bin/bvsync.js');

/**
 * `bvsync doctor` measures the warehouse's volume against what the next sync may need (src/warehouse/file/disk-need.ts).
 * The memory limit is part of the need (the spill), so a huge one makes any volume short without filling a disk.
 */
let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir('doctor-disk')));
afterEach(() => tmp.remove());

function doctor(memoryLimit: string): string {
  const run = spawnSync(process.execPath, [BIN, 'doctor'], {
    cwd: tmp.path,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      REDIS_URL: TEST_REDIS_URL,
      BVSYNC_LOG_LEVEL: 'silent',
      BVSYNC_DB: join(tmp.path, 'bv.duckdb'),
      BVSYNC_DUCKDB_MEMORY_LIMIT: memoryLimit,
    },
  });
  return run.stdout + run.stderr;
}

describe("doctor's disk check", () => {
  it('warns, naming the folder, the free space and the need, when the volume is short of what the next run may need', async () => {
    await (await openWarehouse(join(tmp.path, 'bv.work.duckdb'))).close();
    const out = doctor('100TB');
    expect(out).toMatch(
      new RegExp(
        `warn  disk: [\\d.]+ \\w+ free on ${tmp.path}, below what the next run \\(3 days\\) may need [\\d.]+ TiB`,
      ),
    );
    expect(out).toContain('point BVSYNC_DB (config "db") at it');
    expect(out).not.toContain('memory:');
  });

  it('says the free space and the need when there is room', () => {
    expect(doctor('1MB')).toMatch(/ok {4}disk: [\d.]+ \w+ free on .*; the next run \(3 days\) may need [\d.]+ MiB/);
  });

  it('warns of a DuckDB memory limit below the one syncs were seen safe at, with what to set', () => {
    expect(doctor('64MB')).toMatch(
      /warn {2}memory: warehouse\.memoryLimit 64MB is below 160MB: .*BVSYNC_DUCKDB_MEMORY_LIMIT/,
    );
  });
});
