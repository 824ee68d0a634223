import { minDay } from '../../days.js';
import type { RunKind } from '../../vocabulary.js';

export interface RunWindowInput {
  kind: RunKind;
  brands: number[];
  /** Stream names, spelled out (not empty for "every stream"). */
  streams: string[];
  today: string;
  from?: string | null;
  to?: string | null;
  /** `backfill --skip-complete`: not the run of the same window that reads every slice, nor one of it. */
  skipComplete?: boolean;
}

/**
 * What makes two commands the same run: their kind, the days they fetch, their brands and streams (sorted). A backfill
 * fetches `from` through `to` but never past today; a sync's window is its today, as cursors move only at a run's end.
 */
export function runWindowIdentity(input: RunWindowInput): string {
  const window =
    input.kind === 'backfill' && input.from && input.to
      ? `${input.from}..${minDay(input.to, input.today)}`
      : `today ${input.today}`;
  const brands = [...new Set(input.brands)].sort((a, b) => a - b).join(',');
  const streams = [...new Set(input.streams)].sort().join(',');
  const skipping = input.kind === 'backfill' && input.skipComplete ? ' skipping complete slices' : '';
  return `${input.kind} ${window} brands ${brands} streams ${streams}${skipping}`;
}
