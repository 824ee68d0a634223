import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRY_RUN_ANSWERS } from '../../src/simulator/knobs.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runBvsync } from '../support/engine.js';
import { deletePrefix, testRedis, TEST_REDIS_URL, uniquePrefix } from '../support/redis.js';
import { tempDir } from '../support/tmp.js';

/**
 * A dry run answers each item as the API pleases once nothing is created: `id: null`, no id, `id: 0`, or no `data`
 * at all (simulator knob `dryRunAnswer`). `plan` needs only `info` and `rejected`; it had refused `id: null` and
 * stopped `plan` and `apply` alike.
 */

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'brand-1.yaml');
const prefix = uniquePrefix('dry-run-shapes');
const dir = tempDir('dry-run-shapes');
let config: string;

beforeAll(() => {
  config = join(dir.path, 'bvsync.config.json');
  writeFileSync(
    config,
    JSON.stringify({ redisUrl: TEST_REDIS_URL, redisPrefix: prefix, api: { requestsPerSecond: 200 } }),
  );
});
afterAll(async () => {
  dir.remove();
  const redis = testRedis();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

describe.each(DRY_RUN_ANSWERS)('a dry run answered with %s', (shape) => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ today: '2026-11-20', days: 3, scale: 20 });
    sim.setKnobs({ dryRunAnswer: shape });
  });
  afterAll(() => sim?.close());

  const bvsync = (...args: string[]) =>
    runBvsync(args, {
      ...process.env,
      BVSYNC_API_URL: sim.url,
      BVSYNC_API_KEY: sim.apiKey,
      BVSYNC_CONFIG: config,
      BVSYNC_DB: join(dir.path, 'absent.duckdb'),
      BVSYNC_LOG_LEVEL: 'warn',
    });

  it('plan reads it as nothing written, and apply writes each item once', async () => {
    const plan = await bvsync('plan', EXAMPLE);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/5 to create, 0 to change, 1 to restore, 0 rejected, 0 unchanged \(nothing written\)/);
    expect(
      sim
        .requestLog()
        .filter((entry) => entry.method === 'POST')
        .every((entry) => entry.written === 0),
    ).toBe(true);

    sim.clearRequestLog();
    const apply = await bvsync('apply', EXAMPLE);
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(/applied to brand 1: 5 created, 0 changed, 1 restored, 0 rejected, 0 unchanged/);
    expect(sim.requestLog().reduce((total, entry) => total + (entry.written ?? 0), 0)).toBe(6);
  }, 60_000);
});
