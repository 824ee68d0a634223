import type { StreamCounters } from '../../engine/run/run-store.js';
import { formatDuration, formatInteger } from '../../format.js';
import { splitBrandStreamId } from '../../slice-ids.js';

export interface ProgressSnapshot {
  planned: number;
  done: number;
  rows: number;
  requests: number;
  /** Seconds since this command started waiting on the run. */
  elapsedSeconds: number;
  /**
   * Slices done and requests made before this command started waiting (a run it attached to): left out of the rate
   * and the time left, which measure this command's pace. Default none.
   */
  before?: { done: number; requests: number };
  /**
   * The step of the run in progress, when it has several: a step's slices are planned only once the step before has
   * loaded (phaseOf, src/engine/plan/plan.ts), so the bar, slices and time left are the step's. Default none (one step).
   */
  step?: StepProgress;
  /** Until when fetching waits out a rate limit (its Retry-After, or bvsync's own wait): said when over a few seconds away. */
  rateLimitedUntil?: number;
  /** The clock the wait is told against; default now. */
  now?: number;
}

export interface StepProgress {
  /** 1-based. */
  number: number;
  of: number;
  planned: number;
  done: number;
  /** Seconds since this command saw the step start, and its slices done then: the pace of the time left. */
  elapsedSeconds: number;
  doneAtStart: number;
}

/** Shorter waits come and go between two draws of the line. */
const WAIT_SHOWN_FROM_MS = 3_000;

/** One line: a bar of slices done (of the step, when the run has several), rows, requests, request rate and the time left at the current pace. */
export function progressLine(snapshot: ProgressSnapshot, width = 24): string {
  const step = snapshot.step && snapshot.step.of > 1 ? snapshot.step : undefined;
  const total = step ? step.planned : snapshot.planned;
  const done = step ? step.done : snapshot.done;
  const fraction = total === 0 ? 0 : Math.min(1, done / total);
  const filled = Math.round(fraction * width);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
  const requestsHere = snapshot.requests - (snapshot.before?.requests ?? 0);
  const rate = snapshot.elapsedSeconds > 0 ? requestsHere / snapshot.elapsedSeconds : 0;
  const doneHere = step ? step.done - step.doneAtStart : snapshot.done - (snapshot.before?.done ?? 0);
  const perSlice = doneHere > 0 ? (step ? step.elapsedSeconds : snapshot.elapsedSeconds) / doneHere : 0;
  const eta = doneHere > 0 && total > done ? formatDuration(Math.round(perSlice * (total - done))) : '—';
  const slices = total === 0 ? 'planning' : `${formatInteger(done)}/${formatInteger(total)} slices`;
  const waitMs = (snapshot.rateLimitedUntil ?? 0) - (snapshot.now ?? Date.now());
  const waiting =
    waitMs >= WAIT_SHOWN_FROM_MS
      ? ` · rate limited: waiting until ${new Date(snapshot.rateLimitedUntil!).toISOString().slice(11, 19)} UTC (${formatDuration(Math.ceil(waitMs / 1000))})`
      : '';
  return (
    `${step ? `step ${step.number} of ${step.of} ` : ''}${bar} ${slices} · ${formatInteger(snapshot.rows)} rows · ` +
    `${formatInteger(snapshot.requests)} requests · ${rate.toFixed(1)} req/s · ETA ${step ? 'of the step ' : ''}${eta}${waiting}`
  );
}

/** Rows of the end-of-run table, sorted by brand then stream, from the run's counters keyed `brand|stream`. */
export function summaryRows(counters: Map<string, StreamCounters>) {
  return [...counters.entries()]
    .map(([group, value]) => ({ ...splitBrandStreamId(group), counters: value }))
    .sort((a, b) => Number(a.brand) - Number(b.brand) || a.stream.localeCompare(b.stream));
}

export function sliceStatus(counters: StreamCounters): string {
  if (counters.failed > 0) return `${counters.failed} failed`;
  if (counters.incomplete > 0) return `${counters.incomplete} incomplete`;
  if (counters.done < counters.planned) return `${counters.planned - counters.done} pending`;
  return 'ok';
}
