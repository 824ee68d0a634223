import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { textTable } from '../text-table.js';
import { openQueues } from '../../jobs/queues.js';
import { connectRedis } from '../../jobs/redis.js';
import { RunStore, type RunMeta } from '../../jobs/run-store.js';
import { STREAM_NAMES } from '../streams/stream-names.js';
import { openReadOnly } from '../warehouse/published-database.js';
import { formatResult } from '../warehouse/result-format.js';
import { addCommonOptions, commandLogger, readConfig, redisFor, type CommonFlags } from './context.js';

interface StatusFlags extends CommonFlags {
  runs: string;
}

/** The days a run covers: its window once planned; before that, an incremental run's today. */
export function runWindowText(run: Pick<RunMeta, 'from' | 'to' | 'today'>): string {
  return run.from && run.to ? `${run.from}..${run.to}` : `as of ${run.today}`;
}

/** A run's streams in alphabetical order, or `all` when it runs every stream. */
export function runStreamsText(streams: string[]): string {
  return STREAM_NAMES.every((name) => streams.includes(name)) ? 'all' : [...streams].sort().join(',');
}

// Freshness: the newest day each brand and stream has complete, and how old it is.
const FRESHNESS_SQL = `
SELECT s.brand_id AS brand, s.stream,
       max(s.day) FILTER (WHERE s.status = 'complete')::VARCHAR AS newest_complete_day,
       (current_date - max(s.day) FILTER (WHERE s.status = 'complete'))::INTEGER AS age_days,
       c.through_day::VARCHAR AS incremental_through,
       count(*) FILTER (WHERE s.status = 'failed')::INTEGER AS failed,
       count(*) FILTER (WHERE s.status = 'incomplete')::INTEGER AS incomplete,
       max(s.updated_at)::VARCHAR AS last_loaded
FROM _sync_state s LEFT JOIN _sync_cursors c USING (brand_id, stream)
GROUP BY ALL ORDER BY brand, stream`;

// Failures with what the API said, so they can be reported to its support with the request id.
const FAILURES_SQL = `
SELECT brand_id AS brand, stream, slice_key AS slice, status, error_code, request_id, left(last_error, 120) AS error, run_id
FROM _sync_state WHERE status <> 'complete' ORDER BY updated_at DESC LIMIT 50`;

export function statusCommand(): Command {
  return addCommonOptions(
    new Command('status')
      .description('unfinished and last runs, queue counts, freshness per brand and stream, and failed slices with their API error codes')
      .option('--runs <n>', 'how many recent runs to show', '10'),
  ).action(async (flags: StatusFlags) => {
    const config = readConfig(flags);
    const log = commandLogger(flags);
    const out: string[] = [];
    const redis = await redisFor(config, log).catch((error: Error) => {
      out.push(`Redis: ${error.message}`);
      return undefined;
    });
    if (redis) {
      const connection = connectRedis(redis.url);
      try {
        const store = new RunStore(connection, config.redisPrefix);
        // Unfinished runs first: one of them is what a sync or backfill of the same window attaches to, or what to cancel.
        const unfinished = await store.unfinished();
        const unfinishedTable = textTable(['run', 'kind', 'status', 'window', 'brands', 'streams', 'started', 'slices done']);
        for (const run of unfinished) {
          const { planned, done } = await store.progress(run.runId);
          unfinishedTable.push([run.runId, run.kind, run.status, runWindowText(run), run.brands.join(','), runStreamsText(run.streams), run.startedAt.slice(0, 19), `${done}/${planned}`]);
        }
        out.push('Unfinished runs (bvsync cancel RUN drops one)', unfinished.length ? unfinishedTable.toString() : '(none)', '');
        const runs = await store.recent(Number(flags.runs) || 10);
        const runTable = textTable(['run', 'kind', 'status', 'window', 'brands', 'started', 'finished']);
        for (const run of runs) {
          runTable.push([run.runId, run.kind, run.status, runWindowText(run), run.brands.join(','), run.startedAt.slice(0, 19), run.finishedAt?.slice(0, 19) ?? '']);
        }
        out.push('Recent runs', runs.length ? runTable.toString() : '(none)');
        const queues = openQueues(connection, config.redisPrefix);
        const queueTable = textTable(['queue', 'waiting', 'active', 'delayed', 'failed', 'completed']);
        for (const queue of [queues.fetch, queues.load]) {
          const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed');
          queueTable.push([queue.name, counts.waiting ?? 0, counts.active ?? 0, counts.delayed ?? 0, counts.failed ?? 0, counts.completed ?? 0]);
        }
        await queues.close();
        out.push('', 'Queues', queueTable.toString());
      } finally {
        connection.disconnect();
        await redis.stop();
      }
    }
    if (!existsSync(config.db)) {
      out.push('', `No published database at ${config.db} yet: run bvsync sync or bvsync backfill.`);
    } else {
      const db = await openReadOnly(config.db);
      try {
        out.push('', `Freshness (${db.path})`, formatResult(await db.connection.runAndReadAll(FRESHNESS_SQL), 'table').trimEnd());
        out.push('', 'Slices not complete', formatResult(await db.connection.runAndReadAll(FAILURES_SQL), 'table').trimEnd());
      } finally {
        db.close();
      }
    }
    process.stdout.write(`${out.join('\n')}\n`);
  });
}
