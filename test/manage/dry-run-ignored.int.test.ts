import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runBvsync } from '../support/engine.js';
import { deletePrefix, testRedis, TEST_REDIS_URL, uniquePrefix } from '../support/redis.js';
import { tempDir } from '../support/tmp.js';

/**
 * `bvsync plan` checks every create with `dry_run: true`. An API that reads the flag elsewhere writes instead, and
 * says so in its answer (`info.dry_run` false, `written` above 0): plan had gone on through every batch, written them
 * all, and printed "(nothing written)".
 */

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'brand-1.yaml');
const prefix = uniquePrefix('dry-run-ignored');
let sim: RunningSimulator;
const dir = tempDir('dry-run-ignored');

beforeAll(async () => {
  sim = await startSimulator({ today: '2026-11-20', days: 3, scale: 20 });
  sim.setKnobs({ dryRunIgnored: true });
});
afterAll(async () => {
  await sim?.close();
  dir.remove();
  const redis = testRedis();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

describe('plan against an API that writes a dry run', () => {
  it('stops at the first batch that wrote, says so, and never says nothing was written', async () => {
    const config = join(dir.path, 'bvsync.config.json');
    writeFileSync(config, JSON.stringify({ redisUrl: TEST_REDIS_URL, redisPrefix: prefix, api: { requestsPerSecond: 200 } }));
    sim.clearRequestLog();
    const result = await runBvsync(['plan', EXAMPLE], { ...process.env, BVSYNC_API_URL: sim.url, BVSYNC_API_KEY: sim.apiKey, BVSYNC_CONFIG: config, BVSYNC_DB: join(dir.path, 'absent.duckdb'), BVSYNC_LOG_LEVEL: 'warn' });
    expect(result.code).not.toBe(0);
    expect(result.stdout).not.toMatch(/nothing written/);
    expect(result.stderr).toMatch(/sent with dry_run true, the API answered dry_run false and written 1: it did not check but wrote\. bvsync stopped here and sent nothing more/);
    // One batch wrote before plan stopped; the others were never sent.
    const writes = sim.requestLog().filter((entry) => entry.method === 'POST');
    expect(writes).toHaveLength(1);
  }, 60_000);
});
