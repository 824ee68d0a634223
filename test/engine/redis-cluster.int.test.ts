import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import {
  cliEnv,
  engineFixture,
  runBvsync,
  tableDifferences,
  writeCliConfig,
  type EngineFixture,
} from '../support/engine.js';
import {
  HAVE_REDIS_CLI,
  HAVE_REDIS_SERVER,
  startCluster,
  stopAll,
  type TestServer,
} from '../support/redis-topology.js';
import { sliceStates } from '../reliability/scenarios.js';

/**
 * A `bvsync backfill` on a three-master Redis Cluster (redis+cluster://, a hash-tagged prefix) completes, with tables
 * identical to the same backfill's on a standalone Redis. Every key of bvsync's own scripts (run store, lease, rate
 * budget, outage memo) and of BullMQ's sits under the prefix, whose hash tag puts them in one slot: without it the
 * scripts met CROSSSLOT and the first command MOVED.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-19';
const STREAMS = 'conversations,visibility,competitors,domain_details';
const WORLD = { seed: 5, brands: 1, days: 2, scale: 10, today: TODAY };

let nodes: TestServer[];
let clustered: EngineFixture;
let standalone: EngineFixture;
let prefix: string;

beforeAll(async () => {
  if (!HAVE_REDIS_SERVER || !HAVE_REDIS_CLI) return;
  nodes = await startCluster(3);
  prefix = `{bvsync-cluster-${randomUUID().slice(0, 8)}}`;
  clustered = await engineFixture('cluster', { sim: WORLD, config: { redisPrefix: prefix } });
  standalone = await engineFixture('cluster-ref', { sim: WORLD });
}, 90_000);
afterAll(async () => {
  await clustered?.cleanup();
  await standalone?.cleanup();
  await stopAll();
});

const backfill = (fx: EngineFixture, env: Record<string, string> = {}) =>
  runBvsync(
    ['backfill', '--from', FROM, '--to', TODAY, '--today', TODAY, '--streams', STREAMS, '--config', writeCliConfig(fx)],
    cliEnv(fx, env),
  );

describe.skipIf(!HAVE_REDIS_SERVER || !HAVE_REDIS_CLI)(
  'a Redis Cluster of three masters (needs redis-server and redis-cli on PATH)',
  () => {
    it('a backfill completes through redis+cluster:// with a hash-tagged prefix, with the tables of a standalone Redis', async () => {
      const clusterUrl = `redis+cluster://${nodes.map((node) => `127.0.0.1:${node.port}`).join(',')}`;
      const onCluster = await backfill(clustered, { REDIS_URL: clusterUrl });
      expect(onCluster.code, onCluster.stderr.slice(-3000)).toBe(0);
      expect(onCluster.stdout).toMatch(/run backfill-\S+: complete/);

      // The run's keys are on the Cluster, in the one slot of the prefix's hash tag.
      const cluster = new Cluster(nodes.map((node) => ({ host: '127.0.0.1', port: node.port })));
      try {
        const slot = Number(await cluster.call('CLUSTER', 'KEYSLOT', prefix));
        let keys = 0;
        for (const node of cluster.nodes('master')) {
          const [, found] = await node.scan('0', 'MATCH', `${prefix}:*`, 'COUNT', 10_000);
          for (const key of found) expect(Number(await cluster.call('CLUSTER', 'KEYSLOT', key))).toBe(slot);
          keys += found.length;
        }
        expect(keys).toBeGreaterThan(0);
      } finally {
        cluster.disconnect();
      }

      const reference = await backfill(standalone);
      expect(reference.code, reference.stderr.slice(-3000)).toBe(0);
      expect(await tableDifferences(standalone.config.db, clustered.config.db)).toEqual([]);
      expect(await sliceStates(clustered.config.db)).toEqual(await sliceStates(standalone.config.db));
    }, 180_000);

    it('a cluster address with a prefix that has no hash tag is refused before anything runs, naming the prefix to set', async () => {
      const result = await backfill(standalone, { REDIS_URL: `redis+cluster://127.0.0.1:${nodes[0]!.port}` });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /redisPrefix: a Redis Cluster needs a prefix with a hash tag, so that every key of a run is in one slot: set BVSYNC_REDIS_PREFIX=\{bvsync-test-cluster-ref-[0-9a-f]{8}\}/,
      );
    }, 60_000);
  },
);
