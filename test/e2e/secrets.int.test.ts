import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  engineFixture,
  runBvsync,
  spawnBvsync,
  writeCliConfig,
  type CliResult,
  type EngineFixture,
} from '../support/engine.js';
import { testRedis } from '../support/redis.js';
import { HAVE_REDIS_SERVER, pings, startServer, stopAll } from '../support/redis-topology.js';
import { tempDir } from '../support/tmp.js';

/**
 * The API key never leaves the request header: not in logs (even at debug), `status`, error messages, the
 * database files, exported files, Redis or a worker's metrics. A distinctive key is used, from the environment and
 * from a file (`BVSYNC_API_KEY_FILE`, `REDIS_URL_FILE`), then everything bvsync wrote is searched.
 */

const KEY = 'bvk_live_CANARY_7f3a9c2e1d';
let fx: EngineFixture;
const outputs: Array<[string, CliResult]> = [];
let keyFile: string;
// Outside the fixture's folder, whose every file is searched for the key.
const secretsDir = tempDir('secrets-files');

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
  outputs.push([
    'refused',
    await runBvsync(
      ['backfill', ...days, '--streams', 'competitors,conversations', '--log-level', 'debug', '--config', config],
      refused,
    ),
  ]);
  outputs.push(['status', await runBvsync(['status', '--config', config], env)]);
  outputs.push([
    'export',
    await runBvsync(['export', '--format', 'csv', '--out', join(fx.dir, 'csv'), '--config', config], env),
  ]);
  outputs.push([
    'export',
    await runBvsync(['export', '--format', 'parquet', '--out', join(fx.dir, 'parquet'), '--config', config], env),
  ]);
  outputs.push(['doctor', await runBvsync(['doctor', '--config', config], env)]);
  // The secrets from files, as a Docker or Kubernetes secret mounts them; the key's file readable by every user, so the
  // warning that says so is searched too. A worker serves metrics while a backfill shares its fetching.
  keyFile = join(secretsDir.path, 'api-key');
  writeFileSync(keyFile, `${KEY}\n`);
  chmodSync(keyFile, 0o644);
  const redisFile = join(secretsDir.path, 'redis-url');
  writeFileSync(redisFile, `${fx.redisUrl}\n`, { mode: 0o600 });
  const fromFiles = cliEnv(fx, {
    BVSYNC_API_KEY: '',
    BVSYNC_API_KEY_FILE: keyFile,
    REDIS_URL: '',
    REDIS_URL_FILE: redisFile,
  });
  const worker = spawnBvsync(['worker', '--metrics-port', '0', '--log-level', 'debug', '--config', config], fromFiles);
  await worker.waitFor(/worker started/, 60_000);
  const metricsUrl = /"url":"(http:[^"]+\/metrics)"/.exec(worker.output())?.[1];
  outputs.push([
    'backfill from files',
    await runBvsync(['backfill', ...days, '--log-level', 'debug', '--config', config], fromFiles),
  ]);
  const metrics = metricsUrl ? await (await fetch(metricsUrl)).text() : '';
  outputs.push(['metrics', { code: 0, signal: null, stdout: metrics, stderr: '' }]);
  worker.kill('SIGTERM');
  outputs.push(['worker from files', await worker.done]);
}, 240_000);
afterAll(async () => {
  secretsDir.remove();
  await fx?.cleanup();
});

describe('the API key', () => {
  it('was really used, and the refused key really failed', () => {
    expect(outputs[0]![1].code).toBe(0);
    expect(outputs[1]![1].code).toBe(2);
    expect(outputs[1]![1].stderr).toMatch(/the API refused the key \(HTTP 401 .*Check BVSYNC_API_KEY/);
  });

  it('was read from BVSYNC_API_KEY_FILE, whose mode drew a warning naming the file', () => {
    const [, backfill] = outputs.find(([name]) => name === 'backfill from files')!;
    expect(backfill.code, backfill.stderr).toBe(0);
    expect(backfill.stderr).toContain(`BVSYNC_API_KEY_FILE (${keyFile}) is readable by every user (mode 0644)`);
    const [, metrics] = outputs.find(([name]) => name === 'metrics')!;
    expect(metrics.stdout).toMatch(/^bvsync_/m);
    const [, worker] = outputs.find(([name]) => name === 'worker from files')!;
    expect(worker.stderr).toMatch(/worker stopped/);
  });

  it('is in no output of any command, at debug level included, nor in the metrics', () => {
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

describe.skipIf(!HAVE_REDIS_SERVER)('a wrong Redis password (needs redis-server)', () => {
  afterAll(() => stopAll());

  it('is named as the setting to fix, exit 2 for a backfill, and never shown', async () => {
    const server = await startServer(['--requirepass', 'right-pw-4821'], {
      ping: (port) => pings(`redis://:right-pw-4821@127.0.0.1:${port}`),
    });
    const url = `redis://:wrong-pw-7313@127.0.0.1:${server.port}`;
    const env = { ...process.env, REDIS_URL: url, BVSYNC_CONFIG: '', BVSYNC_API_URL: 'http://127.0.0.1:9' };
    const backfill = await runBvsync(['backfill', '--from', '2026-11-19', '--to', '2026-11-19'], {
      ...env,
      BVSYNC_API_KEY: 'bvk_wrong_redis_pw',
      BVSYNC_BRANDS: '1',
    });
    expect(backfill.code, backfill.stderr).toBe(2);
    expect(backfill.stderr).toContain('Redis refused to let this process in (WRONGPASS');
    expect(backfill.stderr).toContain('check the user and password in REDIS_URL');
    expect(backfill.stderr + backfill.stdout).not.toContain('wrong-pw-7313');
  });
});
