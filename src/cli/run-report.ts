import { formatCount, formatInteger } from '../format.js';
import { textTable } from '../text-table.js';
import { isFinishedRunStatus } from '../vocabulary.js';
import { totalCounters } from '../../jobs/run-store.js';
import { runToEnd, type RunProgress, type RunToEndOptions } from '../../jobs/start-run.js';
import { EXIT_DONE, EXIT_NOT_DONE, exitCodeOfRun } from './exit-codes.js';
import { progressLine, sliceStatus, summaryRows } from './progress.js';

/**
 * Runs a sync or backfill to its end with a live progress line on a terminal (plain log lines otherwise), then
 * prints the summary table. Attaches to the unfinished run of the same window when there is one. Returns the exit
 * code (src/cli/exit-codes.ts): 1 when a slice failed or the run did not finish.
 */
export async function runWithReport(options: RunToEndOptions, out: NodeJS.WriteStream = process.stderr): Promise<{ progress: RunProgress; exitCode: number }> {
  const started = Date.now();
  const live = out.isTTY === true;
  let lastPlain = 0;
  let before: { done: number; requests: number } | undefined;
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const progress = await runToEnd({
      ...options,
      signal: abort.signal,
      onStart: ({ attached, progress: found }) => {
        const meta = found.meta;
        if (attached) {
          before = { done: found.done, requests: totalsOf(found).requests };
          out.write(
            `attaching to unfinished run ${meta.runId} (started ${meta.startedAt.slice(0, 19).replace('T', ' ')} UTC, ${found.done} of ${found.planned} slices done); ` +
              `bvsync cancel ${meta.runId} drops it\n`,
          );
        } else {
          out.write(`started run ${meta.runId}\n`);
        }
      },
      onProgress: (snapshot) => {
        const totals = totalsOf(snapshot);
        const line = progressLine({ planned: snapshot.planned, done: snapshot.done, rows: totals.rows, requests: totals.requests, elapsedSeconds: (Date.now() - started) / 1000, before });
        if (live) out.write(`\r\x1b[2K${line}`);
        else if (Date.now() - lastPlain >= 5_000) {
          lastPlain = Date.now();
          out.write(`${new Date().toISOString()} ${snapshot.meta.runId} ${line}\n`);
        }
      },
    });
    if (live) out.write('\n');
    process.stdout.write(`${summaryTable(progress)}\n`);
    const { meta } = progress;
    const finished = isFinishedRunStatus(meta.status);
    const totals = totalsOf(progress);
    const verdict =
      meta.status === 'cancelled'
        ? `run ${meta.runId}: cancelled (bvsync cancel); ${progress.done} of ${progress.planned} slices were done, and stay loaded`
        : finished
          ? `run ${meta.runId}: ${meta.status}; ${formatCount(totals.rows, 'row')}, ${formatCount(totals.requests, 'request')}, ` +
            `${formatInteger(totals.failed)} failed and ${formatInteger(totals.incomplete)} incomplete slices${meta.published ? `; published ${meta.published}` : ''}`
          : options.enqueueOnly
            ? `run ${meta.runId} enqueued; a bvsync worker will run it (see bvsync status)`
            : `run ${meta.runId} interrupted; its jobs stay queued and a bvsync worker (or the same command again) finishes them`;
    process.stdout.write(`${verdict}\n`);
    // Why a run ended failed when it is not a slice's fault (a load job that failed for good): said once, plainly.
    if (meta.error && meta.status === 'failed') process.stderr.write(`bvsync: run ${meta.runId} failed: ${meta.error}\n`);
    const exitCode = finished ? exitCodeOfRun(meta.status, totals.failed) : options.enqueueOnly ? EXIT_DONE : EXIT_NOT_DONE;
    return { progress, exitCode };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function totalsOf(progress: RunProgress) {
  return totalCounters(progress.counters.values());
}

export function summaryTable(progress: RunProgress): string {
  const table = textTable(
    ['brand', 'stream', 'slices', 'rows', 'rejected', 'requests', 'retries', '429s', 'status'],
    ['right', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
  );
  for (const row of summaryRows(progress.counters)) {
    const c = row.counters;
    const counts = [c.rows, c.rejects, c.requests, c.retries, c.rateLimited].map(formatInteger);
    table.push([row.brand, row.stream, `${formatInteger(c.done)}/${formatInteger(c.planned)}`, ...counts, sliceStatus(c)]);
  }
  return table.toString();
}
