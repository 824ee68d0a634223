import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runBvsync } from '../support/engine.js';
import { deletePrefix, testRedis, TEST_REDIS_URL, uniquePrefix } from '../support/redis.js';
import { tempDir } from '../support/tmp.js';

/**
 * plan and apply against a write API that behaves otherwise than the simulator's reading of the spec:
 * - `bvsync plan` checks every create with `dry_run: true`. An API that reads the flag elsewhere writes instead, and
 *   says so in its answer (`info.dry_run` false, `written` above 0): plan had gone on through every batch, written
 *   them all, and printed "(nothing written)".
 * - an apply the API stops answering midway: `--json` had printed nothing of what it wrote.
 */

const EXAMPLE = join(import.meta.dirname, '..', '..', 'examples', 'brand-1.yaml');
const prefix = uniquePrefix('write-api-quirks');
let sim: RunningSimulator;
const dir = tempDir('write-api-quirks');

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
    writeFileSync(
      config,
      JSON.stringify({ redisUrl: TEST_REDIS_URL, redisPrefix: prefix, api: { requestsPerSecond: 200 } }),
    );
    sim.clearRequestLog();
    const result = await runBvsync(['plan', EXAMPLE], {
      ...process.env,
      BVSYNC_API_URL: sim.url,
      BVSYNC_API_KEY: sim.apiKey,
      BVSYNC_CONFIG: config,
      BVSYNC_DB: join(dir.path, 'absent.duckdb'),
      BVSYNC_LOG_LEVEL: 'warn',
    });
    expect(result.code).not.toBe(0);
    expect(result.stdout).not.toMatch(/nothing written/);
    expect(result.stderr).toMatch(
      /sent with dry_run true, the API answered dry_run false and written 1: it did not check but wrote\. bvsync stopped here and sent nothing more/,
    );
    // One batch wrote before plan stopped; the others were never sent.
    const writes = sim.requestLog().filter((entry) => entry.method === 'POST');
    expect(writes).toHaveLength(1);
  }, 60_000);
});

describe('apply --json stopped midway', () => {
  it('prints the items it settled, with their ids, and why it stopped', async () => {
    const fresh = await startSimulator({ today: '2026-11-20', days: 3, scale: 20 });
    try {
      const config = join(dir.path, 'apply.config.json');
      writeFileSync(
        config,
        JSON.stringify({
          redisUrl: TEST_REDIS_URL,
          redisPrefix: prefix,
          api: { requestsPerSecond: 200, maxAttempts: 2, retryBaseMs: 10, retryMaxMs: 20 },
        }),
      );
      // The first write is answered, every later one 503: the API goes away in the middle of the apply.
      fresh.setKnobs({ realWritesAnswered: 1 });
      const result = await runBvsync(['apply', EXAMPLE, '--json'], {
        ...process.env,
        BVSYNC_API_URL: fresh.url,
        BVSYNC_API_KEY: fresh.apiKey,
        BVSYNC_CONFIG: config,
        BVSYNC_DB: join(dir.path, 'absent.duckdb'),
        BVSYNC_LOG_LEVEL: 'silent',
      });
      expect(result.code).not.toBe(0);
      // It had printed nothing, and the ids of what the first write created were lost.
      const printed = JSON.parse(result.stdout) as { items: Array<{ action: string; id?: number }>; stopped: string };
      const created = printed.items.filter((item) => item.action === 'created');
      expect(created.length).toBeGreaterThan(0);
      expect(created.every((item) => typeof item.id === 'number')).toBe(true);
      expect(printed.stopped).toMatch(/503/);
    } finally {
      await fresh.close();
    }
  }, 60_000);
});
