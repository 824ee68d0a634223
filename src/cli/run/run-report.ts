import { formatCount, formatInteger } from '../../format.js';
import { textTable } from '../../text-table.js';
import { splitBrandStreamId } from '../../slice-ids.js';
import { isFinishedRunStatus } from '../../vocabulary.js';
import { describeGap, phaseOf } from '../../engine/plan/plan.js';
import { connectRedis } from '../../engine/redis/redis.js';
import { totalCounters } from '../../engine/run/run-store.js';
import { runToEnd, type RunProgress, type RunToEndOptions } from '../../engine/run/start-run.js';
import { EXIT_DONE, EXIT_NOT_DONE, exitCodeOfRun } from '../exit-codes.js';
import { routeLogLines } from '../../log.js';
import { selectStreams } from '../../streams/registry.js';
import { LiveLine } from '../live-line.js';
import { progressLine, sliceStatus, summaryRows, type StepProgress } from './progress.js';
import { keyRateSettings, rateLine, readKeyRate } from '../status/key-rate.js';
import { onStopSignal } from '../signals.js';

export interface ReportOptions {
  /** What an interrupted run's line says of its jobs; default: they stay queued for a worker or the same command. */
  interrupted?: (runId: string) => string;
  /**
   * For readers new to bvsync (the demo): no table of slices per stream, whose rows count every table a stream fills,
   * and a last line in plain words; the caller shows what was loaded. Default false.
   */
  plain?: boolean;
  /** Brands the preflight found the key cannot read: their failed slices are no reason to read the window again. */
  deniedBrands?: readonly number[];
}

/**
 * Runs a sync or backfill to its end (attaching to an unfinished run of its window), prints its summary, returns the exit
 * code. Progress is a line redrawn on a terminal, else a plain line every 5 s on stdout (docs/syncing.md, "Syncing").
 */
export async function runWithReport(
  options: RunToEndOptions,
  report: ReportOptions = {},
): Promise<{ progress: RunProgress; exitCode: number }> {
  const terminal = process.stderr;
  const started = Date.now();
  const liveLine = terminal.isTTY === true ? new LiveLine(terminal) : undefined;
  // Notices about the run (started, attached) stay on stderr with the logs; piped, only progress lines go to stdout.
  const say = (text: string) => (liveLine ? liveLine.printAbove(text) : terminal.write(`${text}\n`));
  let lastPlain = 0;
  let before: { done: number; requests: number } | undefined;
  const phases = new Map(
    selectStreams(options.streams).map((stream) => [stream.name, phaseOf(stream, options.config.sync)]),
  );
  const steps = Math.max(1, ...phases.values());
  let step: { number: number; startedAt: number; doneAtStart: number } | undefined;
  const abort = new AbortController();
  const disarm = onStopSignal(() => abort.abort());
  if (liveLine) routeLogLines((text) => liveLine.printAbove(text));
  try {
    const progress = await runToEnd({
      ...options,
      signal: abort.signal,
      onStart: ({ attached, progress: found }) => {
        const meta = found.meta;
        if (attached) {
          before = { done: found.done, requests: totalsOf(found).requests };
          say(
            `attaching to unfinished run ${meta.runId} (started ${meta.startedAt.slice(0, 19).replace('T', ' ')} UTC, ${found.done} of ${found.planned} slices done); ` +
              `bvsync cancel ${meta.runId} drops it`,
          );
        } else {
          say(`started run ${meta.runId}`);
        }
      },
      onProgress: (snapshot) => {
        const totals = totalsOf(snapshot);
        const counts = stepCounts(snapshot, phases);
        const number = Math.max(1, snapshot.meta.phase);
        if (step?.number !== number) step = { number, startedAt: Date.now(), doneAtStart: counts.done };
        const line = progressLine({
          planned: snapshot.planned,
          done: snapshot.done,
          rows: totals.rows,
          requests: totals.requests,
          elapsedSeconds: (Date.now() - started) / 1000,
          before,
          step: {
            number,
            of: steps,
            ...counts,
            elapsedSeconds: (Date.now() - step.startedAt) / 1000,
            doneAtStart: step.doneAtStart,
          } satisfies StepProgress,
          rateLimitedUntil: snapshot.rateLimitedUntil,
        });
        if (liveLine) liveLine.show(line);
        else if (Date.now() - lastPlain >= 5_000) {
          lastPlain = Date.now();
          process.stdout.write(`${new Date().toISOString()} ${snapshot.meta.runId} ${line}\n`);
        }
      },
    });
    liveLine?.end();
    routeLogLines(null);
    // An enqueued run has no slice done yet: its table would have no rows.
    if (!report.plain && !options.enqueueOnly) process.stdout.write(`${summaryTable(progress)}\n`);
    const rate = await keyRateLine(options);
    if (rate) process.stdout.write(`${rate}\n`);
    const { meta } = progress;
    const finished = isFinishedRunStatus(meta.status);
    const totals = totalsOf(progress);
    const verdict =
      meta.status === 'cancelled'
        ? `run ${meta.runId}: cancelled (bvsync cancel); ${progress.done} of ${progress.planned} slices were done, and stay loaded`
        : finished && report.plain
          ? `run ${meta.runId}: ${meta.status}; ${formatCount(totals.requests, 'request')} to the API, ${totals.failed + totals.incomplete === 0 ? 'everything read in full' : `${formatInteger(totals.failed + totals.incomplete)} parts not read in full (bvsync status names them)`}`
          : finished
            ? `run ${meta.runId}: ${meta.status}; ${formatCount(totals.rows, 'row')}, ${formatCount(totals.requests, 'request')}, ` +
              `${formatInteger(totals.failed)} failed and ${formatInteger(totals.incomplete)} incomplete slices` +
              `${totals.failed + totals.incomplete > 0 ? ' (bvsync status says why)' : ''}${meta.published ? `; published ${meta.published}` : ''}`
            : options.enqueueOnly
              ? `run ${meta.runId} enqueued; a bvsync worker will run it (see bvsync status)`
              : (report.interrupted?.(meta.runId) ??
                `run ${meta.runId} interrupted; its jobs stay queued and a bvsync worker (or the same command again) finishes them`);
    process.stdout.write(`${verdict}\n`);
    const skipped = Object.values(meta.skipped ?? {}).reduce((sum, count) => sum + count, 0);
    if (skipped)
      process.stdout.write(`skipped ${formatCount(skipped, 'slice')} the file has complete (--skip-complete)\n`);
    // Why a run ended failed when it is not a slice's fault (a load job that failed for good): said once, plainly.
    if (meta.error && (meta.status === 'failed' || meta.status === 'incomplete'))
      process.stderr.write(`bvsync: run ${meta.runId} ${meta.status}: ${meta.error}\n`);
    for (const gap of meta.gaps ?? []) process.stderr.write(`bvsync: ${describeGap(gap)}\n`);
    const complete = totals.done - totals.failed - totals.incomplete;
    const nothingComplete = streamsNothingComplete(progress);
    const noneComplete = (what: string, incomplete: number) =>
      process.stderr.write(
        `bvsync: no slice of ${what} is complete (${formatInteger(incomplete)} incomplete): bvsync could not confirm it read any of them whole; ` +
          'bvsync status names why each is incomplete, and bvsync doctor checks how it reads the API\n',
      );
    if (meta.status === 'incomplete' && complete === 0 && totals.incomplete > 0)
      noneComplete(`run ${meta.runId}`, totals.incomplete);
    else if (meta.status === 'incomplete')
      for (const { brand, stream, incomplete } of nothingComplete)
        noneComplete(`${stream} of brand ${brand}`, incomplete);
    const denied = new Set(report.deniedBrands?.map(String));
    const readAgain = summaryRows(progress.counters).some(
      ({ brand, counters }) => !denied.has(brand) && counters.failed + counters.incomplete > 0,
    );
    if (finished && meta.kind === 'backfill' && !options.skipComplete && readAgain)
      process.stderr.write(
        'bvsync: the same command with --skip-complete reads again only the slices not complete, not the whole window\n',
      );
    const exitCode = finished
      ? exitCodeOfRun(
          meta.status,
          totals.failed + (meta.gaps?.length ?? 0),
          nothingComplete.map(({ brand, stream }) => `${stream} of brand ${brand}`),
        )
      : options.enqueueOnly
        ? EXIT_DONE
        : EXIT_NOT_DONE;
    return { progress, exitCode };
  } finally {
    liveLine?.end();
    routeLogLines(null);
    disarm();
  }
}

/**
 * The key's rate and the limit the API states, with their sources, as the runs' budgets left them in Redis; undefined
 * without an API key or when Redis does not answer (the summary goes on without it).
 */
async function keyRateLine(options: RunToEndOptions): Promise<string | undefined> {
  const settings = keyRateSettings(options.config);
  if (!settings) return undefined;
  const connection = connectRedis(options.redisUrl, { maxRetriesPerRequest: 1 });
  connection.on('error', () => undefined);
  try {
    return rateLine(await readKeyRate(connection, settings));
  } catch {
    return undefined;
  } finally {
    connection.disconnect();
  }
}

/** Slices planned and done of the run's step in progress (its plan phase), from the counters keyed `brand|stream`. */
function stepCounts(progress: RunProgress, phases: ReadonlyMap<string, number>): { planned: number; done: number } {
  const phase = Math.max(1, progress.meta.phase);
  let planned = 0;
  let done = 0;
  for (const [group, counters] of progress.counters) {
    if ((phases.get(splitBrandStreamId(group).stream) ?? 1) !== phase) continue;
    planned += counters.planned;
    done += counters.done;
  }
  return { planned, done };
}

/**
 * The streams of a brand with incomplete slices and not one complete, with how many: each brand's tables are its own,
 * so one brand's complete days do not make another's empty ones done.
 */
function streamsNothingComplete(progress: RunProgress): Array<{ brand: string; stream: string; incomplete: number }> {
  return summaryRows(progress.counters)
    .filter(({ counters }) => counters.incomplete > 0 && counters.done - counters.failed - counters.incomplete === 0)
    .map(({ brand, stream, counters }) => ({ brand, stream, incomplete: counters.incomplete }));
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
    table.push([
      row.brand,
      row.stream,
      `${formatInteger(c.done)}/${formatInteger(c.planned)}`,
      ...counts,
      sliceStatus(c),
    ]);
  }
  return table.toString();
}
