import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliResult, runBvsync } from '../support/engine.js';

/**
 * With REDIS_URL unset and nothing at 127.0.0.1:6379, only a command doing all its work in its own process starts a
 * private redis-server (src/cli/context.ts, `redisFor`). One that shares Redis with other processes, or reads what
 * they left, says no Redis answers: nothing else would reach a private one. Each command runs in a network namespace
 * of its own (`unshare -n`), where nothing listens on 6379.
 */

const CAN_UNSHARE = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore' }).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'bvsync-no-local-redis-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts a redis-server on 6379 in the namespace and SIGSTOPs it once it answers; ends it after the command. */
const FROZEN_LOCAL_REDIS = [
  'redis-server --port 6379 --bind 127.0.0.1 --save "" --appendonly no >/dev/null & redis=$!',
  'until redis-cli -p 6379 ping >/dev/null 2>&1; do sleep 0.1; done',
  'kill -STOP $redis',
  '"$0" "$@"; code=$?',
  'kill -KILL $redis',
  'exit $code',
].join('; ');

/** Runs bvsync in a network namespace with only loopback up, with REDIS_URL unset (and a frozen Redis on 6379). */
function runWithoutLocalRedis(args: string[], options: { frozenLocalRedis?: boolean } = {}): Promise<CliResult> {
  const { REDIS_URL: _unset, ...env } = process.env;
  const script = `ip link set lo up && ${options.frozenLocalRedis ? FROZEN_LOCAL_REDIS : 'exec "$0" "$@"'}`;
  return runBvsync(
    args,
    {
      ...env,
      BVSYNC_DB: join(dir, 'bvsync.duckdb'),
      BVSYNC_REDIS_PREFIX: 'no-local-redis',
      BVSYNC_CONFIG: '',
      BVSYNC_API_URL: 'http://127.0.0.1:9',
      BVSYNC_API_KEY: 'bvk_no_local_redis',
      BVSYNC_BRANDS: '1',
    },
    ['unshare', '-n', 'sh', '-c', script],
  );
}

describe.skipIf(!CAN_UNSHARE)('no Redis at 127.0.0.1:6379 and no REDIS_URL (needs `unshare -n` and `ip`)', () => {
  it('status says no Redis answers and exits 1, starting no private redis-server', async () => {
    const result = await runWithoutLocalRedis(['status']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^Redis: no Redis answers \(nothing at redis:\/\/127\.0\.0\.1:6379\)/m);
    expect(result.stdout).toContain('Recent runs (from _sync_runs: Redis did not answer)');
    expect(result.stderr).not.toContain('private redis-server');
  });

  it('cancel says no Redis answers (exit 1), not that Redis holds no such run (exit 2)', async () => {
    const result = await runWithoutLocalRedis(['cancel', 'backfill-20261120T000000Z-abcdef']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^bvsync: no Redis answers \(nothing at redis:\/\/127\.0\.0\.1:6379\)/m);
    expect(result.stderr).not.toContain('no run backfill-');
  });

  const day = ['--from', '2026-11-19', '--to', '2026-11-19'];
  it.each([
    ['worker', ['worker']],
    ['scheduler', ['scheduler']],
    ['dashboard', ['dashboard', '--port', '0']],
    ['backfill --enqueue-only', ['backfill', ...day, '--enqueue-only']],
  ])('%s, whose work other processes share, says no Redis answers (exit 1)', async (_name, args) => {
    const result = await runWithoutLocalRedis(args);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^bvsync: no Redis answers \(nothing at redis:\/\/127\.0\.0\.1:6379\)/m);
    expect(result.stderr).not.toContain('private redis-server');
  });

  it.skipIf(spawnSync('sh', ['-c', 'command -v redis-server'], { stdio: 'ignore' }).status !== 0)(
    'backfill, which runs its run in its own process, still starts a private redis-server (needs redis-server)',
    async () => {
      const result = await runWithoutLocalRedis(['backfill', ...day]);
      expect(result.stderr).toContain('started a private redis-server for this command');
      // No API answers at port 9, so the preflight ends it; the private Redis ends with it.
      expect(result.code, result.stderr).toBe(1);
    },
  );

  it.skipIf(
    spawnSync('sh', ['-c', 'command -v redis-server && command -v redis-cli'], { stdio: 'ignore' }).status !== 0,
  )(
    'backfill says a frozen Redis at 127.0.0.1:6379 does not answer, rather than start a private one beside it',
    async () => {
      const result = await runWithoutLocalRedis(['backfill', ...day], { frozenLocalRedis: true });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(
        /^bvsync: no Redis answers \(redis:\/\/127\.0\.0\.1:6379: it did not answer within 5 s/m,
      );
      expect(result.stderr).not.toContain('private redis-server');
    },
  );
});
