import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { resolveRedis } from '../../src/engine/redis/redis.js';
import { RedisTopologyError, replyAdvice } from '../../src/engine/redis/redis-server-kind.js';
import { checkRedis } from '../../src/cli/doctor/checks.js';
import { runBvsync } from '../support/engine.js';
import {
  HAVE_REDIS_SERVER,
  startReplica,
  startSentinels,
  startServer,
  stopAll,
  type TestServer,
} from '../support/redis-topology.js';
import { parseConfig } from '../../src/configuration.js';

/**
 * A Redis that is not the kind its address names is named, with what to configure, before anything runs: a replica, a
 * Sentinel's port and a Cluster node reached through redis://, a plain server behind redis+sentinel:// or
 * redis+cluster://. Real redis-server processes on free ports.
 */

const NAME = 'bvmaster';
let master: TestServer;
let replica: TestServer;
let sentinel: TestServer;
let clusterNode: TestServer;

beforeAll(async () => {
  if (!HAVE_REDIS_SERVER) return;
  master = await startServer();
  replica = await startReplica(master);
  sentinel = (await startSentinels(master, NAME, 1))[0]!;
  clusterNode = await startServer(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf']);
}, 60_000);
afterAll(stopAll);

const refusal = (url: string, prefix?: string) =>
  resolveRedis({ url, prefix }).then(
    () => undefined,
    (error: unknown) => error as Error,
  );

describe.skipIf(!HAVE_REDIS_SERVER)('the kind of Redis an address reached (needs redis-server on PATH)', () => {
  it('a replica through redis:// is named with its master, and told to use the master or Sentinel', async () => {
    const error = await refusal(replica.url);
    expect(error).toBeInstanceOf(RedisTopologyError);
    expect((error as RedisTopologyError).code).toBe('config_invalid');
    expect(error!.message).toBe(
      `redis://127.0.0.1:${replica.port} is a replica of 127.0.0.1:${master.port}, which refuses writes: point REDIS_URL at the master, ` +
        'or use Sentinel (REDIS_URL=redis+sentinel://host:26379/<master-name>) so bvsync follows failovers',
    );
  });

  it("a Sentinel's port through redis:// is named, with the redis+sentinel:// address to set", async () => {
    const error = await refusal(sentinel.url);
    expect(error).toBeInstanceOf(RedisTopologyError);
    expect(error!.message).toBe(
      `redis://127.0.0.1:${sentinel.port} is a Redis Sentinel (it watches ${NAME}), not the master: ` +
        `set REDIS_URL=redis+sentinel://127.0.0.1:${sentinel.port}/${NAME} (config "redis.sentinels" and "redis.name")`,
    );
  });

  it('a Cluster node through redis:// is named, with the cluster address and a hash-tagged prefix to set', async () => {
    const error = await refusal(clusterNode.url, 'bv-prod');
    expect(error).toBeInstanceOf(RedisTopologyError);
    expect(error!.message).toBe(
      `redis://127.0.0.1:${clusterNode.port} is a node of a Redis Cluster: set REDIS_URL=redis+cluster://127.0.0.1:${clusterNode.port} (config "redis.cluster"), ` +
        'and a Redis Cluster needs a prefix with a hash tag, so that every key of a run is in one slot: set BVSYNC_REDIS_PREFIX={bv-prod} (config "redisPrefix")',
    );
  });

  it('a plain server behind redis+sentinel:// or redis+cluster://, or a master name the Sentinels do not watch, is named', async () => {
    const notSentinel = await refusal(`redis+sentinel://127.0.0.1:${master.port}/${NAME}`);
    expect(notSentinel).toBeInstanceOf(RedisTopologyError);
    expect(notSentinel!.message).toMatch(
      new RegExp(
        `127\\.0\\.0\\.1:${master.port} is not a Redis Sentinel \\(it is a standalone master\\): list the Sentinels' ports`,
      ),
    );
    const unknownName = await refusal(`redis+sentinel://127.0.0.1:${sentinel.port}/nope`);
    expect(unknownName!.message).toMatch(
      new RegExp(
        `the Sentinel at 127\\.0\\.0\\.1:${sentinel.port} watches no master named "nope" \\(it watches ${NAME}\\)`,
      ),
    );
    const notCluster = await refusal(`redis+cluster://127.0.0.1:${master.port}`, '{bvsync}');
    expect(notCluster).toBeInstanceOf(RedisTopologyError);
    expect(notCluster!.message).toMatch(
      new RegExp(
        `127\\.0\\.0\\.1:${master.port} is not a Redis Cluster node \\(it is a standalone master, cluster mode off\\): use REDIS_URL=redis://127\\.0\\.0\\.1:${master.port}`,
      ),
    );
  });

  it('the master, reached through its Sentinel, is taken', async () => {
    const resolved = await resolveRedis({ url: `redis+sentinel://127.0.0.1:${sentinel.port}/${NAME}` });
    expect(resolved.origin).toBe('configured');
    await resolved.stop();
    await resolveRedis({ url: master.url }).then((found) => found.stop());
  });

  it("doctor's Redis line names what it reached instead of passing a Sentinel that answers PING", async () => {
    const lines: Array<[boolean, string]> = [];
    await checkRedis(parseConfig({ redisUrl: sentinel.url }), (ok, line) => (lines.push([ok, line]), ok));
    expect(lines).toEqual([
      [
        false,
        expect.stringMatching(
          new RegExp(
            `^redis: redis://127\\.0\\.0\\.1:${sentinel.port} is a Redis Sentinel \\(it watches ${NAME}\\), not the master`,
          ),
        ),
      ],
    ]);
  });

  it('a command pointed at a replica exits 2 with the same words, before it does anything', async () => {
    const env = {
      ...process.env,
      REDIS_URL: replica.url,
      BVSYNC_CONFIG: '',
      BVSYNC_REDIS_PREFIX: 'bvsync-kind-test',
      BVSYNC_API_URL: 'http://127.0.0.1:9',
      BVSYNC_API_KEY: 'bvk_test',
      BVSYNC_BRANDS: '1',
      BVSYNC_DB: '/nonexistent/bv.duckdb',
    };
    const result = await runBvsync(['worker'], env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trim()).toBe(
      `bvsync: redis://127.0.0.1:${replica.port} is a replica of 127.0.0.1:${master.port}, which refuses writes: point REDIS_URL at the master, or use Sentinel (REDIS_URL=redis+sentinel://host:26379/<master-name>) so bvsync follows failovers`,
    );
  });

  it("a refusal met mid-command (a replica's READONLY, a Sentinel's unknown command) is read as the topology it reveals", async () => {
    const onReplica = new Redis(replica.url, { maxRetriesPerRequest: 0 });
    const onSentinel = new Redis(sentinel.url, { maxRetriesPerRequest: 0 });
    try {
      const readonly = await onReplica.set('bvsync-kind-test', '1').catch((error: Error) => error.message);
      expect(replyAdvice(String(readonly))).toMatch(
        /^Redis answered READONLY: the server is a replica now \(a failover\?\)\. Point REDIS_URL at the master, or use Sentinel/,
      );
      const unknown = await onSentinel.hgetall('bvsync-kind-test').catch((error: Error) => error.message);
      expect(replyAdvice(String(unknown))).toMatch(
        /^Redis answered "unknown command": the port is a Redis Sentinel's\. Set REDIS_URL=redis\+sentinel:\/\//,
      );
    } finally {
      onReplica.disconnect();
      onSentinel.disconnect();
    }
  });
});
