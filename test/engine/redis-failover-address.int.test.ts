import { createServer, connect, type Server } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../src/engine/run/run-store.js';
import {
  cliEnv,
  engineFixture,
  runBvsync,
  spawnBvsync,
  writeCliConfig,
  type EngineFixture,
} from '../support/engine.js';
import { HAVE_REDIS_SERVER, startReplica, startServer, stopAll, type TestServer } from '../support/redis-topology.js';
import { until } from '../support/until.js';

/**
 * A managed Redis behind one address fails over with Redis's FAILOVER: the old master keeps its clients as a replica,
 * and the address (a proxy here, DNS there) leads new connections to the new master. A worker started before goes on.
 */

const TODAY = '2026-11-20';

let master: TestServer;
let replica: TestServer;
let fx: EngineFixture;
let proxy: Server;
/** Where the address leads a new connection: the port of the master, as a managed Redis's DNS name does. */
let target: number;

beforeAll(async () => {
  if (!HAVE_REDIS_SERVER) return;
  master = await startServer();
  replica = await startReplica(master);
  target = master.port;
  proxy = createServer((client) => {
    const server = connect(target, '127.0.0.1');
    client.pipe(server).pipe(client);
    for (const [one, other] of [
      [client, server],
      [server, client],
    ] as const) {
      one.on('error', () => other.destroy());
      one.on('close', () => other.destroy());
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  fx = await engineFixture('failover-address', { sim: { seed: 4, brands: 1, days: 2, scale: 5, today: TODAY } });
}, 90_000);
afterAll(async () => {
  proxy?.close();
  await fx?.cleanup();
  await stopAll();
});

describe.skipIf(!HAVE_REDIS_SERVER)('a Redis address whose master fails over (needs redis-server)', () => {
  it('a worker started before the failover runs a run enqueued after it', async () => {
    const port = (proxy.address() as { port: number }).port;
    const env = cliEnv(fx, { REDIS_URL: `redis://127.0.0.1:${port}` });
    const config = writeCliConfig(fx);
    const worker = spawnBvsync(['worker', '--config', config], env);
    const observer = new Redis(replica.url);
    try {
      await worker.waitFor(/worker started/, 60_000);
      await new Redis(master.url).call('FAILOVER');
      await until('the replica to be master', async () => (await observer.role())[0] === 'master', 30_000, 50);
      target = replica.port;

      const enqueued = await runBvsync(['sync', '--enqueue-only', '--streams', 'competitors', '--config', config], env);
      expect(enqueued.code, enqueued.stderr).toBe(0);
      const runId = /run (\S+) enqueued/.exec(enqueued.stdout)?.[1];
      expect(runId, enqueued.stdout).toBeDefined();
      const runs = new RunStore(observer, fx.config.redisPrefix);
      await until('the run to complete', async () => (await runs.get(runId!))?.status === 'complete', 60_000, 100);
    } finally {
      worker.kill('SIGTERM');
      await worker.done;
      observer.disconnect();
    }
  }, 180_000);
});
