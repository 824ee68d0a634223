import { textTable } from '../text-table.js';
import { totalCounters } from '../../jobs/run-store.js';
import { runToEnd, type RunProgress, type RunToEndOptions } from '../../jobs/start-run.js';
import { progressLine, sliceStatus, summaryRows } from './progress.js';

/**
 * Runs a sync or backfill to its end with a live progress line on a terminal (plain log lines otherwise), then
 * prints the summary table. Returns the exit code: 1 when a slice failed.
 */
export async function runWithReport(options: RunToEndOptions, out: NodeJS.WriteStream = process.stderr): Promise<{ progress: RunProgress; exitCode: number }> {
  const started = Date.now();
  const live = out.isTTY === true;
  let lastPlain = 0;
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const progress = await runToEnd({
      ...options,
      signal: abort.signal,
      onProgress: (snapshot) => {
        const totals = totalsOf(snapshot);
        const line = progressLine({ planned: snapshot.planned, done: snapshot.done, rows: totals.rows, requests: totals.requests, elapsedSeconds: (Date.now() - started) / 1000 });
        if (live) out.write(`\r\x1b[2K${line}`);
        else if (Date.now() - lastPlain >= 5_000) {
          lastPlain = Date.now();
          out.write(`${new Date().toISOString()} ${snapshot.meta.runId} ${line}\n`);
        }
      },
    });
    if (live) out.write('\n');
    process.stdout.write(`${summaryTable(progress)}\n`);
    const finished = ['complete', 'incomplete', 'failed'].includes(progress.meta.status);
    const totals = totalsOf(progress);
    const verdict = finished
      ? `run ${progress.meta.runId}: ${progress.meta.status}; ${totals.rows.toLocaleString('en-US')} rows, ${totals.requests} requests, ` +
        `${totals.failed} failed and ${totals.incomplete} incomplete slices${progress.meta.published ? `; published ${progress.meta.published}` : ''}`
      : options.enqueueOnly
        ? `run ${progress.meta.runId} enqueued; a bvsync worker will run it (see bvsync status)`
        : `run ${progress.meta.runId} interrupted; its jobs stay queued and a bvsync worker (or the next command) finishes them`;
    process.stdout.write(`${verdict}\n`);
    // Why a run ended failed when it is not a slice's fault (a load job that failed for good): said once, plainly.
    if (progress.meta.error) process.stderr.write(`bvsync: run ${progress.meta.runId} failed: ${progress.meta.error}\n`);
    const exitCode = totals.failed > 0 || progress.meta.status === 'failed' || (!finished && !options.enqueueOnly) ? 1 : 0;
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
    table.push([row.brand, row.stream, `${c.done}/${c.planned}`, c.rows, c.rejects, c.requests, c.retries, c.rateLimited, sliceStatus(c)]);
  }
  return table.toString();
}
