import { NO_DIMENSIONS, readDimensions, warehouseDimensions } from '../../streams/dimensions.js';
import { STREAMS, selectStreams } from '../../streams/registry.js';
import type { DaySliceNotComplete } from '../../warehouse/state/bookkeeping.js';
import { groupBy } from '../../group-by.js';
import type { DimensionReads } from '../../warehouse/state/dimension-reads.js';
import { lastPhase, needsOf, phaseOf, planPhase, type PlanMode } from './plan.js';
import type { SyncConfig } from '../../configuration.js';
import { brandStreamId, sliceId } from '../../slice-ids.js';

/** The `backfill --skip-complete` that reads again the day slices not complete a backfill still plans. */
export interface SkipCompleteBackfill {
  /** The first and last day of those slices: the backfill's `--from` and `--to`. */
  from: string;
  to: string;
  /** The brands that have them, ascending. */
  brands: number[];
  /** The streams that have them, alphabetical: the backfill's `--streams`. */
  streams: string[];
  /**
   * How many of the slices not complete the file holds it reads again. It reads the never-read slices of its streams
   * and days too (a series added since, a stream newly planned): those have no row to count.
   */
  slices: number;
}

/** Words a backfill the engine advises, as the command that runs it (src/cli/run/skip-complete-command.ts). */
export type DescribeBackfill = (backfill: SkipCompleteBackfill) => string;

export interface SkipCompleteBackfillOptions {
  /** The day slices not complete, of the brands and streams the config plans (`daySlicesNotComplete`). */
  notComplete: readonly DaySliceNotComplete[];
  sync: SyncConfig;
  today: string;
  /** Where the plan reads what later phases fan out over: the file the slices are in. */
  reads: DimensionReads;
}

/**
 * The backfill re-reading the day slices not complete, or undefined. Only slices the planner still plans count, so
 * a dropped series advises none; the window is replanned to span them (test/engine/skip-complete-backfill.test.ts).
 */
export async function skipCompleteBackfill(
  options: SkipCompleteBackfillOptions,
): Promise<SkipCompleteBackfill | undefined> {
  let left = [...options.notComplete];
  for (let window = dayRange(left); window; ) {
    const planned = await plannedSliceIds(left, window, options);
    const kept = left.filter((slice) => planned.has(sliceId(slice.brandId, slice.stream, slice.key)));
    const next = dayRange(kept);
    if (next && next.from === window.from && next.to === window.to) return backfillOver(kept);
    left = kept;
    window = next;
  }
  return undefined;
}

/**
 * Backfills re-reading the day slices not complete, per brand and stream over its own days, merged only where window
 * and streams (or brands) match, so none re-reads far days. Earlier phases first: fanned-out streams follow sources.
 */
export async function skipCompleteBackfills(options: SkipCompleteBackfillOptions): Promise<SkipCompleteBackfill[]> {
  const groups = groupBy(options.notComplete, (slice) => brandStreamId(slice.brandId, slice.stream));
  // Each group reads its brand's dimensions: asked once, whatever the number of groups (an echoed-engines query reads
  // every brand's at once).
  const reads = memoizedReads(options.reads);
  const found: SkipCompleteBackfill[] = [];
  for (const slices of groups.values()) {
    const one = await skipCompleteBackfill({ ...options, reads, notComplete: slices });
    if (one) found.push(one);
  }
  const byStream = mergeWhere(
    found,
    (each) => `${each.from}|${each.to}|${each.streams.join(',')}`,
    (a, b) => ({ ...a, brands: [...a.brands, ...b.brands].sort((x, y) => x - y) }),
  );
  const merged = mergeWhere(
    byStream,
    (each) => `${each.from}|${each.to}|${each.brands.join(',')}`,
    (a, b) => ({ ...a, streams: [...a.streams, ...b.streams].sort() }),
  );
  const phase = (each: SkipCompleteBackfill) =>
    Math.min(...selectStreams(each.streams).map((stream) => phaseOf(stream, options.sync)));
  return merged.sort(
    (a, b) => phase(a) - phase(b) || a.from.localeCompare(b.from) || a.streams[0]!.localeCompare(b.streams[0]!),
  );
}

/** The backfills with the same `key` merged into one by `join`, their slices added up. */
function mergeWhere(
  backfills: readonly SkipCompleteBackfill[],
  key: (each: SkipCompleteBackfill) => string,
  join: (a: SkipCompleteBackfill, b: SkipCompleteBackfill) => SkipCompleteBackfill,
): SkipCompleteBackfill[] {
  const merged = new Map<string, SkipCompleteBackfill>();
  for (const each of backfills) {
    const shared = merged.get(key(each));
    merged.set(key(each), shared ? { ...join(shared, each), slices: shared.slices + each.slices } : each);
  }
  return [...merged.values()];
}

/** The reads, each asked of the file once. */
function memoizedReads(reads: DimensionReads): DimensionReads {
  const asked = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    let answer = asked.get(key) as Promise<T> | undefined;
    if (!answer) asked.set(key, (answer = read()));
    return answer;
  };
  return {
    brandColumn: (table, column, brandId) =>
      once(`column|${table}|${column}|${brandId}`, () => reads.brandColumn(table, column, brandId)),
    listedPages: (brandId, since) => once(`pages|${brandId}|${since ?? ''}`, () => reads.listedPages(brandId, since)),
    echoedEngines: (stream) => once(`engines|${stream}`, () => reads.echoedEngines(stream)),
  };
}

/** The backfill over these slices' days, brands and streams, whether a backfill plans them or not; undefined for none. */
export function backfillOver(slices: readonly DaySliceNotComplete[]): SkipCompleteBackfill | undefined {
  const window = dayRange(slices);
  if (!window) return undefined;
  return {
    ...window,
    brands: [...new Set(slices.map((slice) => slice.brandId))].sort((a, b) => a - b),
    streams: [...new Set(slices.map((slice) => slice.stream))].sort(),
    slices: slices.length,
  };
}

function dayRange(slices: readonly DaySliceNotComplete[]): { from: string; to: string } | undefined {
  if (!slices.length) return undefined;
  const days = slices.map((slice) => slice.day).sort();
  return { from: days[0]!, to: days.at(-1)! };
}

/**
 * Which of `slices` a backfill of the window plans, every phase, as `sliceId`s. Each brand is planned only on the days
 * and streams those slices have, since a day slice's plan does not depend on other days; the window sets the pages.
 */
async function plannedSliceIds(
  slices: readonly DaySliceNotComplete[],
  window: { from: string; to: string },
  { sync, today, reads }: SkipCompleteBackfillOptions,
): Promise<Set<string>> {
  // As a plan job reads them (plan-job.ts): pages listed from the backfill's first day on count.
  const source = warehouseDimensions(reads, window.from);
  const planned = new Set<string>();
  for (const [brandId, ofBrand] of groupBy(slices, (slice) => slice.brandId)) {
    const needed = new Set(streamsOf(ofBrand).flatMap((stream) => needsOf(stream, sync)));
    const dimensions = needed.size
      ? await readDimensions(STREAMS.values(), needed, source, brandId, sync.domains)
      : NO_DIMENSIONS;
    for (const [day, ofDay] of groupBy(ofBrand, (slice) => slice.day)) {
      const mode: PlanMode = { kind: 'backfill', from: day, to: day, today };
      const streams = streamsOf(ofDay);
      for (let phase = 1; phase <= lastPhase(sync); phase++) {
        const { slices: ofPhase } = planPhase({
          mode,
          brands: [brandId],
          streams,
          phase,
          sync,
          cursors: new Map(),
          dimensions: () => dimensions,
        });
        for (const slice of ofPhase) planned.add(sliceId(slice.brandId, slice.stream, slice.key));
      }
    }
  }
  return planned;
}

/** The streams with slices among these. */
function streamsOf(slices: readonly DaySliceNotComplete[]) {
  return selectStreams([...new Set(slices.map((slice) => slice.stream))]);
}
