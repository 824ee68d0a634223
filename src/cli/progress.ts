import type { StreamCounters } from '../engine/run-store.js';
import { formatDuration, formatInteger } from '../format.js';

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
   * Slices not planned yet but expected (phase 2 before phase 1 ends: see phase-two-estimate.ts). Counted in the total
   * and the time left, which are then marked "~" (estimated). Default none.
   */
  expectedMore?: number;
  /** Until when fetching waits out a rate limit (its Retry-After, or bvsync's own wait): said when over a few seconds away. */
  rateLimitedUntil?: number;
  /** The clock the wait is told against; default now. */
  now?: number;
}

/** Shorter waits come and go between two draws of the line. */
const WAIT_SHOWN_FROM_MS = 3_000;

/** One line: a bar of slices done, rows, requests, request rate and the time left at the current pace. */
export function progressLine(snapshot: ProgressSnapshot, width = 24): string {
  const expectedMore = Math.max(0, Math.round(snapshot.expectedMore ?? 0));
  const estimated = expectedMore > 0 ? '~' : '';
  const total = snapshot.planned + expectedMore;
  const fraction = total === 0 ? 0 : Math.min(1, snapshot.done / total);
  const filled = Math.round(fraction * width);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
  const doneHere = snapshot.done - (snapshot.before?.done ?? 0);
  const requestsHere = snapshot.requests - (snapshot.before?.requests ?? 0);
  const rate = snapshot.elapsedSeconds > 0 ? requestsHere / snapshot.elapsedSeconds : 0;
  const perSlice = doneHere > 0 ? snapshot.elapsedSeconds / doneHere : 0;
  const eta = doneHere > 0 && total > snapshot.done ? `${estimated}${formatDuration(Math.round(perSlice * (total - snapshot.done)))}` : '—';
  const waitMs = (snapshot.rateLimitedUntil ?? 0) - (snapshot.now ?? Date.now());
  const waiting =
    waitMs >= WAIT_SHOWN_FROM_MS
      ? ` · rate limited: waiting until ${new Date(snapshot.rateLimitedUntil!).toISOString().slice(11, 19)} UTC (${formatDuration(Math.ceil(waitMs / 1000))})`
      : '';
  return (
    `${bar} ${snapshot.done}/${estimated}${total} slices · ${formatInteger(snapshot.rows)} rows · ` +
    `${formatInteger(snapshot.requests)} requests · ${rate.toFixed(1)} req/s · ETA ${eta}${waiting}`
  );
}


export interface SummaryRow {
  brand: string;
  stream: string;
  counters: StreamCounters;
}

/** Rows of the end-of-run table, sorted by brand then stream, from the run's counters keyed `brand|stream`. */
export function summaryRows(counters: Map<string, StreamCounters>): SummaryRow[] {
  return [...counters.entries()]
    .map(([group, value]) => {
      const [brand = '', stream = ''] = group.split('|');
      return { brand, stream, counters: value };
    })
    .sort((a, b) => Number(a.brand) - Number(b.brand) || a.stream.localeCompare(b.stream));
}

export function sliceStatus(counters: StreamCounters): string {
  if (counters.failed > 0) return `${counters.failed} failed`;
  if (counters.incomplete > 0) return `${counters.incomplete} incomplete`;
  if (counters.done < counters.planned) return `${counters.planned - counters.done} pending`;
  return 'ok';
}
