import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import {
  cliEnv,
  engineFixture,
  runBvsync,
  spawnBvsync,
  tableDifferences,
  writeCliConfig,
  type CliProcess,
  type EngineFixture,
} from '../support/engine.js';
import {
  HAVE_REDIS_SERVER,
  masterPortOf,
  startReplica,
  startSentinels,
  startServer,
  stopAll,
  type TestServer,
} from '../support/redis-topology.js';
import { conversationsGate } from '../support/answer-gate.js';
import { until } from '../support/until.js';
import { sliceStates } from '../reliability/scenarios.js';

/**
 * A `bvsync backfill` through Redis Sentinel (a master, a replica, three Sentinels; redis+sentinel://) whose master is
 * killed mid-run: the Sentinels promote the replica, the command follows them to it without a restart, and the run
 * completes with the tables of an undisturbed backfill of the same window.
 */

const NAME = 'bvmaster';
const TODAY = '2026-11-20';
const FROM = '2026-11-19';
const STREAMS = 'conversations,visibility,competitors,domain_details';
const WORLD = { seed: 9, brands: 2, days: 2, scale: 10, today: TODAY };

let master: TestServer;
let replica: TestServer;
let sentinels: TestServer[];
let disturbed: EngineFixture;
let undisturbed: EngineFixture;

/** Past the first two, the disturbed run's conversations are answered only once the master is dead: it cannot end before. */
const gate = conversationsGate(2);

beforeAll(async () => {
  if (!HAVE_REDIS_SERVER) return;
  master = await startServer();
  replica = await startReplica(master);
  sentinels = await startSentinels(master, NAME, 3);
  disturbed = await engineFixture('sentinel', {
    sim: {
      ...WORLD,
      beforeAnswer: gate.beforeAnswer,
    },
  });
  undisturbed = await engineFixture('sentinel-ref', { sim: WORLD });
}, 90_000);
afterAll(async () => {
  await disturbed?.cleanup();
  await undisturbed?.cleanup();
  await stopAll();
});

const args = (fx: EngineFixture) => [
  'backfill',
  '--from',
  FROM,
  '--to',
  TODAY,
  '--today',
  TODAY,
  '--streams',
  STREAMS,
  '--config',
  writeCliConfig(fx),
];

describe.skipIf(!HAVE_REDIS_SERVER)(
  'Redis Sentinel: a master, a replica and three Sentinels (needs redis-server on PATH)',
  () => {
    it('the master killed mid-backfill: the Sentinels promote the replica, the run follows and completes with identical tables', async () => {
      const address = `redis+sentinel://${sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`).join(',')}/${NAME}`;
      const env = cliEnv(disturbed, { REDIS_URL: address, BVSYNC_LEASE_TTL_MS: '3000', BVSYNC_JOB_LOCK_MS: '3000' });
      let backfill: CliProcess | undefined;
      const observer = connectRedis(address);
      observer.on('error', () => undefined);
      try {
        backfill = spawnBvsync(args(disturbed), env);
        const runs = new RunStore(observer, disturbed.config.redisPrefix);
        let atKill = '';
        await until(
          'some slices done, not all',
          async () => {
            const [run] = await runs.recent(1);
            if (!run) return false;
            const { planned, done } = await runs.progress(run.runId);
            atKill = `${done}/${planned}`;
            return done >= 2 && done < planned;
          },
          90_000,
          20,
        );
        const [run] = await runs.recent(1);
        expect(
          await runs.progress(run!.runId).then(({ done, planned }) => done < planned),
          `the run was over before the kill (${atKill})`,
        ).toBe(true);

        await master.kill();
        gate.open();
        // The failover, as the Sentinels announce it.
        await until(
          'the Sentinels to name the replica as master',
          async () => (await masterPortOf(sentinels[0]!, NAME)) === replica.port,
          60_000,
          100,
        );

        const result = await backfill.done;
        expect(result.code, result.stderr.slice(-3000)).toBe(0);
        expect(result.stdout).toMatch(/run backfill-\S+: complete/);
      } finally {
        gate.open();
        backfill?.kill('SIGKILL');
        observer.disconnect();
      }

      const reference = await runBvsync(args(undisturbed), cliEnv(undisturbed));
      expect(reference.code, reference.stderr.slice(-3000)).toBe(0);
      expect(await tableDifferences(undisturbed.config.db, disturbed.config.db)).toEqual([]);
      expect(await sliceStates(disturbed.config.db)).toEqual(await sliceStates(undisturbed.config.db));
    }, 240_000);
  },
);
