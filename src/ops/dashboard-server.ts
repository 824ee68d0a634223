import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { FETCH_QUEUE, LOAD_QUEUE, openQueues } from '../engine/jobs/queues.js';
import { connectForCommand } from '../engine/redis/redis.js';

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

const require = createRequire(import.meta.url);

/**
 * Bull Board's page template without its Google Fonts link, so the page uses system fonts and asks nothing of any other
 * host (it works offline). Written to a folder of its own; returns it.
 */
function localFontsTemplate(): string {
  const template = readFileSync(
    join(dirname(require.resolve('@bull-board/ui/package.json')), 'dist', 'index.ejs'),
    'utf8',
  );
  const local = template.replace(/<link[^>]+href="https?:\/\/[^"]*"[^>]*>\s*/g, '');
  const folder = mkdtempSync(join(tmpdir(), 'bvsync-dashboard-'));
  writeFileSync(join(folder, 'index.ejs'), local);
  return folder;
}

// States in which a job waits for a worker to take it.
const PENDING_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'];

/**
 * Bull Board flags a queue with no worker in orange, but `sync`, `backfill` and `demo` work in-process and leave, so the
 * flag is kept only while jobs wait with nothing to take them.
 */
function workersFlagOnlyWhenJobsWait<T>(route: string, result: T): T {
  const body = (
    result as
      | { body?: { queues?: Array<{ hasWorkers?: boolean | null; counts?: Record<string, number> }> } }
      | undefined
  )?.body;
  if (route !== '/api/queues' || !Array.isArray(body?.queues)) return result;
  for (const queue of body.queues) {
    const pending = PENDING_STATES.reduce((sum, state) => sum + (queue.counts?.[state] ?? 0), 0);
    if (queue.hasWorkers === false && pending === 0) queue.hasWorkers = null;
  }
  return result;
}

/** Serves Bull Board, the standard BullMQ UI, over bvsync's queues. */
export async function startDashboard(options: DashboardOptions): Promise<RunningDashboard> {
  // A request a frozen Redis never answers fails in 10 s, where it hung (test/e2e/redis-frozen.int.test.ts).
  const connection = connectForCommand(options.redisUrl);
  const queues = openQueues(connection, options.prefix);
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath('/');
  createBullBoard({
    queues: [queues.fetch, queues.load].map(
      (queue) =>
        new BullMQAdapter(queue, {
          readOnlyMode: options.readOnly ?? false,
          description: DESCRIPTIONS[queue.name] ?? '',
          displayName: queue.name,
        }),
    ),
    serverAdapter,
    options: {
      uiConfig: { boardTitle: 'bvsync', hideDocsLink: true },
      handlerHooks: { after: (context, result) => workersFlagOnlyWhenJobsWait(context.route, result) },
    },
  });
  const templates = localFontsTemplate();
  serverAdapter.setViewsPath(templates);
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
    rmSync(templates, { recursive: true, force: true });
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
      rmSync(templates, { recursive: true, force: true });
    },
  };
}
