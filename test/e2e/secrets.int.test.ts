import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, engineFixture, runBvsync, writeCliConfig, type CliResult, type EngineFixture } from '../support/engine.js';
import { testRedis } from '../support/redis.js';

/**
 * The API key never leaves the request header: not in logs (even at debug), `status`, error messages, the
 * database files, exported files or Redis. A distinctive key is used, then everything bvsync wrote is searched.
 */

const KEY = 'bvk_live_CANARY_7f3a9c2e1d';
let fx: EngineFixture;
const outputs: Array<[string, CliResult]> = [];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

beforeAll(async () => {
  fx = await engineFixture('secrets', { sim: { brands: 2, apiKey: KEY } });
  const config = writeCliConfig(fx);
  const env = cliEnv(fx);
  const days = ['--from', '2026-11-19', '--to', '2026-11-20', '--today', '2026-11-20'];
  outputs.push(['backfill', await runBvsync(['backfill', ...days, '--log-level', 'debug', '--config', config], env)]);
  // A key the API refuses: the preflight's first request fails with 401, and the command stops there, naming the setting.
  const refused = cliEnv(fx, { BVSYNC_API_KEY: `${KEY}_revoked`, BVSYNC_DB: join(fx.dir, 'refused.duckdb') });
  outputs.push(['refused', await runBvsync(['backfill', ...days, '--streams', 'competitors,conversations', '--log-level', 'debug', '--config', config], refused)]);
  outputs.push(['status', await runBvsync(['status', '--config', config], env)]);
  outputs.push(['export', await runBvsync(['export', '--format', 'csv', '--out', join(fx.dir, 'csv'), '--config', config], env)]);
  outputs.push(['export', await runBvsync(['export', '--format', 'parquet', '--out', join(fx.dir, 'parquet'), '--config', config], env)]);
  outputs.push(['doctor', await runBvsync(['doctor', '--config', config], env)]);
}, 240_000);
afterAll(async () => fx?.cleanup());

describe('the API key', () => {
  it('was really used, and the refused key really failed', () => {
    expect(outputs[0]![1].code).toBe(0);
    expect(outputs[1]![1].code).toBe(2);
    expect(outputs[1]![1].stderr).toMatch(/the API refused the key \(HTTP 401 .*Check BVSYNC_API_KEY/);
  });

  it('is in no output of any command, at debug level included', () => {
    for (const [name, result] of outputs) {
      expect(result.stdout, `${name} stdout`).not.toContain(KEY);
      expect(result.stderr, `${name} stderr`).not.toContain(KEY);
    }
  });

  it('is in no file bvsync wrote: databases (working and published), exports, the config', () => {
    const files = filesUnder(fx.dir);
    expect(files.some((file) => file.endsWith('.work.duckdb'))).toBe(true);
    expect(files.some((file) => file.endsWith('.parquet'))).toBe(true);
    expect(files.some((file) => file.endsWith('.csv'))).toBe(true);
    for (const file of files) expect(readFileSync(file).includes(KEY), file).toBe(false);
  });

  it('is in no Redis key or value under the prefix', async () => {
    const redis = testRedis();
    try {
      let cursor = '0';
      let seen = 0;
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${fx.config.redisPrefix}*`, 'COUNT', 500);
        cursor = next;
        for (const key of keys) {
          seen += 1;
          expect(key).not.toContain(KEY);
          const dump = await redis.dump(key);
          expect(dump?.includes(KEY) ?? false, key).toBe(false);
        }
      } while (cursor !== '0');
      expect(seen).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  });
});
