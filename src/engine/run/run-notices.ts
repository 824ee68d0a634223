import type { Logger } from '../../log.js';
import { FIRST_ERRORS, type Notifier, type NoticeError, type RunNotice, type StaleNotice } from '../../notify/index.js';
import type { NewestCompleteDay } from '../../warehouse/state/bookkeeping.js';
import type { SliceStateRow } from '../../warehouse/state/run-log.js';
import { totalCounters, type RunMeta, type RunStore } from './run-store.js';
import { DAY_MS } from '../../days.js';

/** The run's event, when its end is one people are told of. */
export function runEventOf(status: string): RunNotice['event'] | undefined {
  return status === 'failed' ? 'run_failed' : status === 'incomplete' ? 'run_incomplete' : undefined;
}

/** The first failed slices of a run, from its states in `_sync_state` (the latest attempt, which is this run's). */
function firstErrors(states: readonly SliceStateRow[]): NoticeError[] {
  return states
    .filter((state) => state.lastAttempt.status === 'failed' || state.status === 'failed')
    .slice(0, FIRST_ERRORS)
    .map((state) => ({
      brand: state.brandId,
      stream: state.stream,
      slice: state.sliceKey,
      code: state.lastAttempt.errorCode ?? state.errorCode,
      message: state.lastAttempt.error ?? state.lastError ?? 'failed',
    }));
}

export interface RunEndNoticeOptions {
  runs: RunStore;
  notifier: Notifier | undefined;
  /** The run as it ends (its final status and time set). */
  meta: RunMeta;
  /** Its failed slices, when the caller can read `_sync_state` (the writer); a command that waits cannot. */
  states?: readonly SliceStateRow[];
}

/**
 * The notice of a run that ended failed or incomplete, if this process claims it first. The writer claims ahead of
 * writing the run's end, so its notice (with slice errors) wins; a waiting command's goes when no writer had a webhook.
 */
export async function claimRunEndNotice(options: RunEndNoticeOptions): Promise<RunNotice | undefined> {
  const { runs, notifier, meta } = options;
  const event = runEventOf(meta.status);
  if (!event || !notifier?.wants(event)) return undefined;
  if (!(await runs.claimNotice(meta.runId, event))) return undefined;
  const { runId: id, kind, status, brands, streams, from, to, startedAt, finishedAt, error } = meta;
  const totals = totalCounters((await runs.counters(meta.runId)).values());
  const { planned: slices, done, failed, incomplete, rows, requests, rateLimited } = totals;
  return {
    event,
    run: { id, kind, status, brands, streams, from, to, startedAt, finishedAt, error },
    counts: { slices, done, failed, incomplete, rows, requests, rateLimited },
    errors: options.states ? firstErrors(options.states) : [],
  };
}

/**
 * Sends what a run's end calls for and does not wait for the delivery: the run's own notice, then `stale` for the
 * brands and streams of the run whose newest complete day is older than `notify.staleAfterHours`.
 */
export function sendRunEndNotices(
  notifier: Notifier | undefined,
  notice: RunNotice | undefined,
  stale: StaleNotice | undefined,
  log: Logger,
): void {
  if (!notifier) return;
  if (notice) void notifier.notify(notice);
  if (stale) void notifier.notify(stale);
  if (notice || stale)
    log.debug({ run: notice?.run.id, events: [notice?.event, stale?.event].filter(Boolean) }, 'notifying');
}

/** The stale pairs among a run's brands and streams, if anyone asked for `stale` and this process claims it first. */
export async function claimStaleNotice(
  runs: RunStore,
  notifier: Notifier | undefined,
  meta: RunMeta,
  staleAfterHours: number,
  freshness: () => Promise<NewestCompleteDay[]>,
): Promise<StaleNotice | undefined> {
  if (!notifier?.wants('stale')) return undefined;
  const stale = staleOf(await freshness(), meta, staleAfterHours, Date.now());
  if (stale.length === 0 || !(await runs.claimNotice(meta.runId, 'stale'))) return undefined;
  return { event: 'stale', staleAfterHours, stale };
}

/** A day is complete once it is over: its data is as old as the end of its newest complete day. */
export function staleOf(
  rows: readonly NewestCompleteDay[],
  meta: Pick<RunMeta, 'brands' | 'streams'>,
  staleAfterHours: number,
  now: number,
): StaleNotice['stale'] {
  const stale: StaleNotice['stale'] = [];
  for (const row of rows) {
    if (!row.newestCompleteDay || !meta.brands.includes(row.brand) || !meta.streams.includes(row.stream)) continue;
    const ageHours = Math.floor((now - (Date.parse(row.newestCompleteDay) + DAY_MS)) / 3_600_000);
    if (ageHours > staleAfterHours)
      stale.push({ brand: row.brand, stream: row.stream, newestCompleteDay: row.newestCompleteDay, ageHours });
  }
  return stale;
}
