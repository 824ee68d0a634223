import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { FETCH_QUEUE, LOAD_QUEUE, openQueues } from '../../jobs/queues.js';
import { connectRedis } from '../../jobs/redis.js';

export interface DashboardOptions {
  redisUrl: string;
  /** The Redis key prefix of the queues (`redisPrefix` of the config). */
  prefix: string;
  /** Port to listen on; default 3000; 0 picks a free one (tests). */
  port?: number;
  /** Interface to listen on; default `127.0.0.1`: the board can retry and delete jobs, so it is not public by default. */
  host?: string;
  /** Show the queues without the buttons that retry, promote or delete jobs; default false. */
  readOnly?: boolean;
}

export interface RunningDashboard {
  /** `http://host:port/`. */
  url: string;
  close(): Promise<void>;
}

const DESCRIPTIONS: Record<string, string> = {
  [FETCH_QUEUE]: 'one job per slice (brand x stream x day): pages through the API; run by every worker',
  [LOAD_QUEUE]: 'plan, commit and finalize jobs: run one at a time by the worker holding the DuckDB writer lease',
};

/** Serves Bull Board, the standard BullMQ UI, over bvsync's queues. */
export async function startDashboard(options: DashboardOptions): Promise<RunningDashboard> {
  const connection = connectRedis(options.redisUrl);
  const queues = openQueues(connection, options.prefix);
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath('/');
  createBullBoard({
    queues: [queues.fetch, queues.load].map(
      (queue) => new BullMQAdapter(queue, { readOnlyMode: options.readOnly ?? false, description: DESCRIPTIONS[queue.name] ?? '', displayName: queue.name }),
    ),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'bvsync', hideDocsLink: true } },
  });
  const server = createServer(serverAdapter.getRouter() as Parameters<typeof createServer>[0]);
  const host = options.host ?? '127.0.0.1';
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 3000, host, () => resolve());
    });
  } catch (error) {
    await queues.close();
    connection.disconnect();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queues.close();
      connection.disconnect();
    },
  };
}
