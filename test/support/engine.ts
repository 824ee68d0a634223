import { join } from 'node:path';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { deletePrefix, testRedis, TEST_REDIS_URL, uniquePrefix } from './redis.js';
import { tempDir } from './tmp.js';

/** Everything an end-to-end test needs: a simulator, a Redis prefix of its own, a temp folder, and a config. */
export interface EngineFixture {
  sim: RunningSimulator;
  config: Config;
  redisUrl: string;
  dir: string;
  log: ReturnType<typeof createLogger>;
  cleanup(): Promise<void>;
}

export async function engineFixture(
  name: string,
  options: { sim?: SimulatorOptions; config?: Record<string, unknown> } = {},
): Promise<EngineFixture> {
  const sim = await startSimulator({ seed: 7, brands: 2, days: 10, scale: 40, today: '2026-11-20', ...options.sim });
  const dir = tempDir(name);
  const prefix = uniquePrefix(name);
  const config = parseConfig({
    api: { url: sim.url, apiKey: sim.apiKey, requestsPerSecond: 1000, retryBaseMs: 5, retryMaxMs: 50 },
    brands: sim.brands,
    db: join(dir.path, 'bv.duckdb'),
    redisPrefix: prefix,
    ...options.config,
  });
  const log = createLogger({ level: process.env.BVSYNC_TEST_LOG ?? 'silent', pretty: false });
  return {
    sim,
    config,
    redisUrl: TEST_REDIS_URL,
    dir: dir.path,
    log,
    cleanup: async () => {
      await sim.close();
      const redis = testRedis();
      await deletePrefix(redis, prefix);
      redis.disconnect();
      dir.remove();
    },
  };
}
