import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { cliEnv, engineFixture, runBvsync, spawnBvsync, writeCliConfig } from '../support/engine.js';
import { cleanReference, FROM, PrivateRedis, redisTroubleScenario, TODAY, type Reference } from './scenarios.js';

/**
 * Redis killed in the middle of a `bvsync backfill` and started again on the same port: with its data (append-only
 * file) the command carries on and completes; without it the command says the run is gone and exits non-zero, and
 * the same command run again completes the window. Either way the tables equal a clean run's: the state that matters
 * lives with the data, in DuckDB.
 */

const HAVE_REDIS_SERVER = PrivateRedis.available();

let reference: Reference;
beforeAll(async () => {
  if (HAVE_REDIS_SERVER) reference = await cleanReference();
});
afterAll(async () => reference?.fx.cleanup());

describe.skipIf(!HAVE_REDIS_SERVER)('Redis restarted mid-run (needs redis-server on PATH to run a private one)', () => {
  it('with its data kept: the workers reconnect and the same command completes the run', async () => {
    const outcome = await redisTroubleScenario(reference, { keepData: true });
    expect(outcome.firstExit, outcome.firstOutput.slice(-2000)).toBe(0);
    expect(outcome.reran).toBe(false);
    expect(outcome.problems).toEqual([]);
    expect(outcome.status).toBe('complete');
    expect(outcome.differences).toEqual([]);
    expect(outcome.stateDifferences).toBe(0);
  }, 120_000);

  it('with its data lost: the command says so and exits 1; running it again completes the window; a bvsync worker beside it rides it out', async () => {
    const outcome = await redisTroubleScenario(reference, { keepData: false, withWorker: true });
    // The worker held the writer lease and lost it with Redis's data, saying so; whether it or the command run again
    // takes it next is a race (CI saw the command win, and the worker take it once).
    expect(outcome.disturbed.at(-1)).toMatch(
      /a bvsync worker rode it out \(took the writer lease [1-9] times, lost it [1-9] times\)/,
    );
    expect(outcome.firstExit).toBe(1);
    expect(outcome.firstOutput).toMatch(
      /bvsync: run backfill-\S+ is no longer in Redis \(Redis lost its data\?\): run the same command again/,
    );
    expect(outcome.reran).toBe(true);
    expect(outcome.problems).toEqual([]);
    expect(outcome.status).toBe('complete');
    expect(outcome.differences).toEqual([]);
    expect(outcome.stateDifferences).toBe(0);
  }, 120_000);
});

describe.skipIf(!HAVE_REDIS_SERVER)('Redis gone for good (needs redis-server on PATH)', () => {
  it('a bvsync worker says once per outage that Redis is away, and told to stop still stops: exit 1 soon after', async () => {
    const server = await PrivateRedis.start(false);
    const fx = await engineFixture('rel-term', { sim: { brands: 1, days: 2, scale: 5, today: TODAY } });
    const worker = spawnBvsync(
      ['worker', '--shutdown-seconds', '2', '--config', writeCliConfig(fx)],
      cliEnv(fx, { REDIS_URL: server.url }),
    );
    try {
      await worker.waitFor(/holding the DuckDB writer lease/);
      await server.kill();
      await worker.waitFor(/redis connection error; reconnecting/);
      await server.start();
      await worker.waitFor(/redis answers again/);
      await server.kill();
      await worker.waitFor(/redis answers again[\s\S]*redis connection error; reconnecting/);
      const asked = Date.now();
      worker.kill('SIGTERM');
      const result = await worker.done;
      // The deadline (2 s) plus the grace for closing DuckDB and Redis (5 s), not forever.
      expect(Date.now() - asked).toBeLessThan(12_000);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /could not stop cleanly( in time)? \((is Redis answering\?|a job still running, or Redis not answering)\); exiting now/,
      );
      // Its connections retried for seconds: each outage is said once, and the BullMQ workers do not repeat it.
      expect(result.stderr.match(/redis connection error/g)).toHaveLength(2);
      expect(result.stderr.match(/redis answers again/g)).toHaveLength(1);
      expect(result.stderr).not.toMatch(/(fetch|load) worker error/);
    } finally {
      worker.kill('SIGKILL');
      await fx.cleanup();
      await server.stop();
    }
  }, 30_000);
});

describe.skipIf(!HAVE_REDIS_SERVER)('Redis away under a scheduler (needs redis-server on PATH)', () => {
  it('a bvsync scheduler says once that Redis stopped answering, and once that it answers again', async () => {
    const server = await PrivateRedis.start(false);
    const fx = await engineFixture('rel-scheduler', { sim: { brands: 1, days: 2, scale: 5, today: TODAY } });
    const config = writeCliConfig(fx, { schedules: [{ name: 'hourly', cron: '0 * * * *' }] });
    const scheduler = spawnBvsync(['scheduler', '--config', config], cliEnv(fx, { REDIS_URL: server.url }));
    try {
      await scheduler.waitFor(/scheduler started/);
      await server.kill();
      await scheduler.waitFor(/redis connection error; reconnecting, and ticks wait until Redis answers/);
      await server.start();
      await scheduler.waitFor(/redis answers again/);
      scheduler.kill('SIGTERM');
      const result = await scheduler.done;
      expect(result.code, result.stderr.slice(-2000)).toBe(0);
      expect(result.stderr).not.toMatch(/Unhandled error event/);
      expect(result.stderr.match(/redis connection error/g)).toHaveLength(1);
    } finally {
      scheduler.kill('SIGKILL');
      await fx.cleanup();
      await server.stop();
    }
  }, 60_000);
});

describe.skipIf(!HAVE_REDIS_SERVER)('Redis gone for good under a backfill (needs redis-server on PATH)', () => {
  it('the backfill stops once Redis has not answered for BVSYNC_REDIS_OUTAGE_MS, exit 1, saying what to do; doing it completes the window', async () => {
    const server = await PrivateRedis.start(false);
    const fx = await engineFixture('rel-gone', { sim: { brands: 1, days: 2, scale: 5, today: TODAY } });
    // Every request waits, so the run is still fetching when Redis goes.
    fx.sim.setKnobs({ latencyMs: 1_000 });
    const args = [
      'backfill',
      '--from',
      FROM,
      '--to',
      TODAY,
      '--today',
      TODAY,
      '--streams',
      'conversations',
      '--config',
      writeCliConfig(fx),
    ];
    const env = cliEnv(fx, { REDIS_URL: server.url, BVSYNC_REDIS_OUTAGE_MS: '1500' });
    const backfill = spawnBvsync(args, env);
    try {
      await backfill.waitFor(/started run/);
      await server.kill();
      const killed = Date.now();
      const result = await backfill.done;
      // The outage limit (1.5 s), then jobs dropped at once and DuckDB closed: seconds, where it had waited for ever.
      expect(Date.now() - killed).toBeLessThan(25_000);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(
          `bvsync: Redis at ${server.url.replace(/\./g, '\\.')}/? has not answered for \\d+ s \\(.*ECONNREFUSED.*\\); stopped waiting on run backfill-\\S+\\. Every slice already committed stays in the warehouse\\. Once Redis answers again, run the same command`,
        ),
      );

      await server.start();
      fx.sim.setKnobs({ latencyMs: 0 });
      const again = await runBvsync(args, env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/run backfill-\S+: complete/);
    } finally {
      backfill.kill('SIGKILL');
      await fx.cleanup();
      await server.stop();
    }
  }, 90_000);
});

describe('no Redis answers at REDIS_URL', () => {
  it('backfill names the Redis it tried, exits non-zero, and creates no DuckDB file', async () => {
    const fx = await engineFixture('rel-no-redis', { sim: { brands: 1, days: 2, scale: 5, today: TODAY } });
    try {
      // A port nothing listens on: a listener opened and closed just now.
      const { createServer } = await import('node:net');
      const port = await new Promise<number>((resolve) => {
        const server = createServer().listen(0, '127.0.0.1', () => {
          const address = server.address() as { port: number };
          server.close(() => resolve(address.port));
        });
      });
      const result = await runBvsync(
        [
          'backfill',
          '--from',
          FROM,
          '--to',
          TODAY,
          '--today',
          TODAY,
          '--streams',
          'conversations',
          '--config',
          writeCliConfig(fx),
        ],
        cliEnv(fx, { REDIS_URL: `redis://127.0.0.1:${port}` }),
      );
      expect(result.code).not.toBe(0);
      const lines = result.stderr.trim().split('\n');
      expect(lines, result.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^bvsync: no Redis answers \\(redis://127\\.0\\.0\\.1:${port}.*ECONNREFUSED`),
      );
      expect(existsSync(fx.config.db)).toBe(false);
      expect(existsSync(fx.config.db.replace(/\.duckdb$/, '.work.duckdb'))).toBe(false);
      expect(fx.sim.requestLog().filter((entry) => !entry.path.startsWith('/__'))).toEqual([]);
    } finally {
      await fx.cleanup();
    }
  });
});
