import type { SyncConfig } from '../config/schema.js';
import { NO_DIMENSIONS, readDimensions, warehouseDimensions } from '../streams/dimensions.js';
import { STREAMS, selectStreams } from '../streams/registry.js';
import type { DaySliceNotComplete } from '../warehouse/bookkeeping.js';
import type { DimensionReads } from '../warehouse/dimension-reads.js';
import { lastPhase, needsOf, planPhase, type PlanMode } from './plan.js';

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

export interface SkipCompleteBackfillOptions {
  /** The day slices not complete, of the brands and streams the config plans (`daySlicesNotComplete`). */
  notComplete: readonly DaySliceNotComplete[];
  sync: SyncConfig;
  today: string;
  /** Where the plan reads what later phases fan out over: the file the slices are in. */
  reads: DimensionReads;
}

/**
 * The backfill that reads again the day slices not complete, or undefined when a backfill would plan none of them.
 * A failed slice of a series the config no longer plans (a domain out of `sync.domains` and of the tracked pages and
 * competitors, a topic deleted, an engine gone) keeps its row in `_sync_state`, and no backfill reads it: counted, it
 * would keep advising a backfill for good. So the slices are planned as that backfill plans them, with the planner
 * itself (`planPhase`, the dimensions read from the file as a plan job reads them) and no cursor, and only those it
 * plans count. Its dimensions are the file's as they are now. The backfill reads them once its own earlier phases
 * loaded, and it reads only the streams that have slices not complete: they differ only when one of those is a phase 1
 * stream (tracked_urls, visibility) whose new rows add a series, a page, a topic or an engine.
 *
 * The window is itself what the plan depends on (a backfill's pages are those listed from its first day on): when the
 * slices it keeps span fewer days, they are planned again over those, until the window holds.
 */
export async function skipCompleteBackfill(options: SkipCompleteBackfillOptions): Promise<SkipCompleteBackfill | undefined> {
  let left = [...options.notComplete];
  for (let window = dayRange(left); window; ) {
    const planned = await plannedSliceIds(left, window, options);
    const kept = left.filter((slice) => planned.has(sliceId(slice)));
    const next = dayRange(kept);
    if (next && next.from === window.from && next.to === window.to) return backfillOver(kept);
    left = kept;
    window = next;
  }
  return undefined;
}

/**
 * The backfills that read again the day slices not complete, one for each span of days and brands: each stream is
 * planned over its own days, and streams of the same days and brands share a backfill. One backfill over every
 * stream's days together would read a stream's never-read days far from its own failures (a stream added last week
 * beside another's failure of six months ago: six months of the new stream).
 */
export async function skipCompleteBackfills(options: SkipCompleteBackfillOptions): Promise<SkipCompleteBackfill[]> {
  const byStream = new Map<string, DaySliceNotComplete[]>();
  for (const slice of options.notComplete) byStream.set(slice.stream, [...(byStream.get(slice.stream) ?? []), slice]);
  const bySpan = new Map<string, SkipCompleteBackfill>();
  for (const slices of byStream.values()) {
    const found = await skipCompleteBackfill({ ...options, notComplete: slices });
    if (!found) continue;
    const span = `${found.from}|${found.to}|${found.brands.join(',')}`;
    const shared = bySpan.get(span);
    bySpan.set(span, shared ? { ...shared, streams: [...shared.streams, ...found.streams].sort(), slices: shared.slices + found.slices } : found);
  }
  return [...bySpan.values()].sort((a, b) => a.from.localeCompare(b.from) || a.streams[0]!.localeCompare(b.streams[0]!));
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

/**
 * The command that runs the backfill. `--brand` names its brands when they are not the config's all (or the config
 * names none, when a backfill needs it); `--streams` always, or the backfill would read every window stream again in
 * full, their slices keyed by a window that matches none the file has.
 */
export function skipCompleteCommand(backfill: SkipCompleteBackfill, configBrands: readonly number[]): string {
  const allBrands = configBrands.length > 0 && configBrands.every((brand) => backfill.brands.includes(brand));
  return [
    'bvsync backfill',
    ...(allBrands ? [] : [`--brand ${backfill.brands.join(',')}`]),
    `--streams ${backfill.streams.join(',')}`,
    `--from ${backfill.from} --to ${backfill.to} --skip-complete`,
  ].join(' ');
}

/** `brand|stream|key`: a slice as the plan and the file both name it. */
function sliceId(slice: { brandId: number; stream: string; key: string }): string {
  return `${slice.brandId}|${slice.stream}|${slice.key}`;
}

function dayRange(slices: readonly DaySliceNotComplete[]): { from: string; to: string } | undefined {
  if (!slices.length) return undefined;
  const days = slices.map((slice) => slice.day).sort();
  return { from: days[0]!, to: days.at(-1)! };
}

/**
 * Which of `slices` a backfill of the window plans, every phase, as `sliceId`s. Each brand is planned only on the days
 * that have such slices, with only their streams: planned over the whole window, one failure at each end of a year of
 * 100 brands built every slice of the year (10.8 s and 995 MB for `bvsync status`). A day slice's plan does not depend
 * on the other days; what the window changes is the pages that count (those listed from its first day on).
 */
async function plannedSliceIds(
  slices: readonly DaySliceNotComplete[],
  window: { from: string; to: string },
  { sync, today, reads }: SkipCompleteBackfillOptions,
): Promise<Set<string>> {
  // As a plan job reads them (load-processor.ts): pages listed from the backfill's first day on count.
  const source = warehouseDimensions(reads, window.from);
  // brand -> day -> the streams with slices not complete that day
  const daysOf = new Map<number, Map<string, Set<string>>>();
  for (const slice of slices) {
    const days = daysOf.get(slice.brandId) ?? new Map<string, Set<string>>();
    daysOf.set(slice.brandId, days);
    days.set(slice.day, (days.get(slice.day) ?? new Set<string>()).add(slice.stream));
  }
  const planned = new Set<string>();
  for (const [brandId, days] of daysOf) {
    const names = new Set([...days.values()].flatMap((streams) => [...streams]));
    const needed = new Set(selectStreams([...names]).flatMap((stream) => needsOf(stream, sync)));
    const dimensions = needed.size ? await readDimensions(STREAMS.values(), needed, source, brandId, sync.domains) : NO_DIMENSIONS;
    for (const [day, streamsOfDay] of days) {
      const mode: PlanMode = { kind: 'backfill', from: day, to: day, today };
      const streams = selectStreams([...streamsOfDay]);
      for (let phase = 1; phase <= lastPhase(sync); phase++) {
        const { slices: ofPhase } = planPhase({ mode, brands: [brandId], streams, phase, sync, cursors: new Map(), dimensions: () => dimensions });
        for (const slice of ofPhase) planned.add(sliceId(slice));
      }
    }
  }
  return planned;
}
