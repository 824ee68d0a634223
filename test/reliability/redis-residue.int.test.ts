import { describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import { cliEnv, engineFixture, runBvsync, spawnBvsync, writeCliConfig } from '../support/engine.js';
import { conversationsGate } from '../support/answer-gate.js';
import { until } from '../support/until.js';
import { FROM, PrivateRedis, STREAMS, TAKEOVER_MS, TODAY, WORLD } from './scenarios.js';

/**
 * Redis restarted empty while a `bvsync backfill` had slices in flight: the run is gone, and the process that finds so
 * writes nothing of it into the fresh Redis (src/engine/run/run-gone.ts). Before, its reads that finished after the restart
 * left commit jobs, chunks and the run's `:stats`/`:done` keys there; the same command run again then logged an error
 * for such a job and `status` listed it as a failed load job.
 */

const HAVE_REDIS_SERVER = PrivateRedis.available();

describe.skipIf(!HAVE_REDIS_SERVER)(
  'a run lost with its Redis (needs redis-server on PATH to run a private one)',
  () => {
    it('leaves no key and no job of it in the restarted Redis, and the command run again fails no load job', async () => {
      const server = await PrivateRedis.start(false);
      // Slow answers: many slices are being read when Redis restarts, and finish after it is back, empty. Past the first
      // two, conversations are answered only then, so the run cannot end before the restart.
      const gate = conversationsGate(2);
      const fx = await engineFixture('residue', {
        sim: {
          ...WORLD,
          latencyMs: 300,
          beforeAnswer: gate.beforeAnswer,
        },
      });
      fx.redisUrl = server.url;
      const env = cliEnv(fx, {
        REDIS_URL: server.url,
        BVSYNC_LEASE_TTL_MS: String(TAKEOVER_MS),
        BVSYNC_JOB_LOCK_MS: String(TAKEOVER_MS),
      });
      const args = [
        'backfill',
        '--from',
        FROM,
        '--to',
        TODAY,
        '--today',
        TODAY,
        '--streams',
        STREAMS.join(','),
        '--config',
        writeCliConfig(fx),
      ];
      const first = spawnBvsync(args, env);
      const observer = connectRedis(server.url, { retryStrategy: () => 50 });
      observer.on('error', () => {});
      try {
        const runs = new RunStore(observer, fx.config.redisPrefix);
        let lostRun = '';
        await until(
          'the backfill to have committed a slice',
          async () => {
            const [run] = await runs.recent(1);
            if (!run) return false;
            const { planned, done } = await runs.progress(run.runId);
            lostRun = run.runId;
            return done > 0 && done < planned;
          },
          120_000,
          20,
        );
        await server.kill();
        await server.start();
        gate.open();

        const firstResult = await first.done;
        expect(firstResult.code).toBe(1);
        expect(firstResult.stderr).toMatch(new RegExp(`run ${lostRun} is no longer in Redis`));
        // Nothing of the lost run in the fresh Redis: no key naming it (its record, counters, chunks, jobs) and no job.
        const keys = await observer.keys(`${fx.config.redisPrefix}:*`);
        expect(keys.filter((key) => key.includes(lostRun))).toEqual([]);
        expect(keys.filter((key) => key.includes(':chunk:'))).toEqual([]);
        for (const name of ['fetch', 'load']) {
          // A Queue leaves a connection it is given open: the observer's is closed below.
          const queue = new Queue(name, { connection: observer, prefix: fx.config.redisPrefix });
          const jobs = await queue.getJobs(
            ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'],
            0,
            10_000,
          );
          await queue.close();
          expect(jobs.filter((job) => (job.data as { runId?: string }).runId === lostRun).map((job) => job.id)).toEqual(
            [],
          );
        }

        fx.sim.setKnobs({ latencyMs: 0 });
        const again = await runBvsync(args, env);
        expect(again.code, again.stderr.slice(-2000)).toBe(0);
        expect(again.stderr).not.toMatch(/load job failed/);
        const status = await runBvsync(['status', '--json', '--config', writeCliConfig(fx)], env);
        expect(status.code, status.stderr).toBe(0);
        const report = JSON.parse(status.stdout) as { queues: Array<{ queue: string; failed: number }> };
        expect(report.queues.find((queue) => queue.queue === 'load')?.failed).toBe(0);
      } finally {
        gate.open();
        first.kill('SIGKILL');
        observer.disconnect();
        await fx.cleanup();
        await server.stop();
      }
    }, 300_000);
  },
);
