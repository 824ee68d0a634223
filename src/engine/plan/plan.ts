import { addDays, eachDay, maxDay, minDay } from '../../days.js';
import type { SliceStatus } from '../../vocabulary.js';
import type { DimensionName, Dimensions } from '../../streams/dimensions.js';
import { STREAMS } from '../../streams/registry.js';
import type { AnyStream, SettingsOf, SettingsShape, SlicePlan, StreamPlanning } from '../../streams/stream.js';
import type { SyncConfig } from '../../configuration.js';
import { brandStreamId } from '../../slice-ids.js';

/**
 * The planner, pure: a run = brands x streams x slices, from the cursors and the dimensions phase 1 loaded.
 * Job ids are derived from the slices it returns, so planning the same run twice adds nothing.
 */

export type PlanMode =
  | { kind: 'incremental'; today: string }
  | { kind: 'backfill'; from: string; to: string; today: string };

export interface PlanInput {
  mode: PlanMode;
  brands: number[];
  streams: StreamPlanning[];
  /** The plan phase; a stream is planned in its own phase only. */
  phase: number;
  sync: SyncConfig;
  /** The incremental cursor (last complete day) of a brand and stream, keyed `brand|stream`. */
  cursors: ReadonlyMap<string, string>;
  dimensions: (brandId: number) => Dimensions;
  /** The process clock's day the plan is made on, for lists filed under the day they are read; default the real one. */
  readDay?: string;
}

export interface PlannedSlice extends SlicePlan {
  brandId: number;
  stream: string;
}

/** A stream the run asked for that could plan nothing for a brand, and why: the run says so and keeps its cursor. */
export interface PlanGap {
  brandId: number;
  stream: string;
  why: string;
}

/** A gap as the run's log and the command's last lines say it. */
export function describeGap(gap: PlanGap): string {
  return `${gap.stream} planned nothing for brand ${gap.brandId}: ${gap.why}`;
}

/** The first day an incremental sync of a stream with no cursor would fetch. */
export function firstIncrementalDay(today: string, sync: SyncConfig): string {
  return sync.startDate ?? addDays(today, -(sync.initialDays - 1));
}

/**
 * Where a stream with no cursor may start: the end of the unbroken complete days from its first incremental day,
 * so a first sync does not refetch what a backfill loaded. `days`: per day, whether its slices are all complete.
 */
export function completeThrough(
  first: string,
  days: ReadonlyArray<{ day: string; complete: boolean }>,
): string | undefined {
  const byDay = new Map(days.map((entry) => [entry.day, entry.complete]));
  let through: string | undefined;
  for (let day = first; byDay.get(day) === true; day = addDays(day, 1)) through = day;
  return through;
}

/** Days the lookback reads again on every incremental run, today among them: at least today. */
export function lookbackWindowDays(sync: SyncConfig): number {
  return Math.max(sync.lookbackDays, 1);
}

/** The days a stream of a brand fetches in this run. */
export function daysToFetch(mode: PlanMode, sync: SyncConfig, cursor: string | undefined): string[] {
  if (mode.kind === 'backfill') return eachDay(mode.from, minDay(mode.to, mode.today));
  // Answers for recent days keep arriving, so the last lookback days are fetched again even when complete.
  const lookbackStart = addDays(mode.today, 1 - lookbackWindowDays(sync));
  const start = cursor ? minDay(addDays(cursor, 1), lookbackStart) : firstIncrementalDay(mode.today, sync);
  return eachDay(maxDay(start, '1970-01-01'), mode.today);
}

/**
 * The phase's slices and gaps: a per-engine stream with days to fetch but no engine. Every brand answers through some
 * engine, so none known means bvsync could not learn them (visibility's `info.query`), not that nothing is to read.
 */
export function planPhase(input: PlanInput): { slices: PlannedSlice[]; gaps: PlanGap[] } {
  const slices: PlannedSlice[] = [];
  const gaps: PlanGap[] = [];
  for (const brandId of input.brands) {
    for (const stream of input.streams) {
      if (phaseOf(stream, input.sync) !== input.phase) continue;
      const days = daysToFetch(input.mode, input.sync, input.cursors.get(brandStreamId(brandId, stream.name)));
      const dimensions = input.dimensions(brandId);
      const planned = stream.slices({ brandId, days, sync: input.sync, dimensions, readDay: input.readDay });
      for (const slice of planned) slices.push({ ...slice, brandId, stream: stream.name });
      if (
        planned.length === 0 &&
        days.length > 0 &&
        needsOf(stream, input.sync).includes('engines') &&
        dimensions.engines.length === 0
      ) {
        gaps.push({
          brandId,
          stream: stream.name,
          why:
            'no engine is known to break the reports down by: the visibility report named none in info.query (or has not ' +
            "loaded for this brand); set sync.engineBreakdown to the API's engine ids, or load visibility first",
        });
      }
    }
  }
  return { slices, gaps };
}

/**
 * Where an incremental cursor moves after a run: to the last day before the first slice that did not complete,
 * never to today (today is still filling up), never backwards.
 */
export function nextCursor(
  current: string | undefined,
  today: string,
  slices: ReadonlyArray<{ day: string | null; status: SliceStatus }>,
): string | undefined {
  const dated = slices.filter((slice) => slice.day !== null) as Array<{ day: string; status: string }>;
  const failedDays = slices.filter((slice) => slice.status !== 'complete').map((slice) => slice.day);
  if (failedDays.includes(null)) return current; // a window or whole-brand slice failed: nothing is known complete
  const firstFailed = (failedDays as string[]).sort()[0];
  const doneDays = dated.filter((slice) => slice.status === 'complete').map((slice) => slice.day);
  let candidate = addDays(today, -1);
  if (firstFailed) candidate = minDay(candidate, addDays(firstFailed, -1));
  if (dated.length > 0) {
    const lastDone = doneDays
      .filter((day) => day <= candidate)
      .sort()
      .at(-1);
    if (!lastDone) return current;
    candidate = minDay(candidate, lastDone);
  }
  return current ? maxDay(current, candidate) : candidate;
}

/** The dimensions a stream needs under this config. */
export function needsOf(stream: StreamPlanning, sync: SyncConfig): readonly DimensionName[] {
  const needs = stream.needs ?? [];
  return typeof needs === 'function' ? needs(sync as SettingsOf<SettingsShape>) : needs;
}

/**
 * A stream's plan phase: 1, or one after the latest phase of every registry stream, selected or not, that provides a
 * dimension it needs (what an earlier run loaded counts), as dlt's `rest_api` orders resources by `resolve` params.
 */
export function phaseOf(stream: StreamPlanning, sync: SyncConfig): number {
  const all = [...STREAMS.values()];
  const visiting = new Set<string>();
  const phase = (current: StreamPlanning): number => {
    if (visiting.has(current.name))
      throw new Error(
        `streams depend on each other in a circle through ${current.name}: ${[...visiting].join(' -> ')}`,
      );
    visiting.add(current.name);
    let latest = 0;
    for (const need of needsOf(current, sync)) {
      for (const provider of all.filter((candidate) => candidate.provides?.[need] && candidate.name !== current.name)) {
        latest = Math.max(latest, phase(provider));
      }
    }
    visiting.delete(current.name);
    return latest + 1;
  };
  return phase(stream);
}

/** The last phase a run plans, of every stream of the registry: a run plans each phase up to it, even empty. */
export function lastPhase(sync: SyncConfig): number {
  return Math.max(1, ...[...STREAMS.values()].map((stream) => phaseOf(stream, sync)));
}

/** A phase as planned, for the checks that warn of what it leaves unread. */
export interface PlannedPhase {
  runId: string;
  brands: readonly number[];
  streams: readonly AnyStream[];
  slices: ReadonlyArray<{ brandId: number; stream: string; day: string | null; key: string }>;
  today: string;
}

/** The first day each brand and stream plans, keyed `brand|stream`: the days before it this run does not read. */
export function firstPlannedDays(
  slices: ReadonlyArray<{ brandId: number; stream: string; day: string | null }>,
): Map<string, string> {
  const first = new Map<string, string>();
  for (const slice of slices) {
    if (slice.day === null) continue;
    const key = brandStreamId(slice.brandId, slice.stream);
    const day = first.get(key);
    if (day === undefined || slice.day < day) first.set(key, slice.day);
  }
  return first;
}
