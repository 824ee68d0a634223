import { addDays, eachDay } from '../days.js';
import { unlessSpent } from './call-budget.js';
import type { DayWindow } from './figure.js';

/** The days a disagreement comes down to, and the windows left unsplit, by why. */
export interface NarrowedDays {
  days: string[];
  /** Windows that disagree but that the call budget left unsplit. */
  unresolved: DayWindow[];
  /**
   * Windows that disagree while neither half does: a figure that does not add up over days, or an API that changed
   * meanwhile. They are backfilled whole.
   */
  undivided: DayWindow[];
}

export interface NarrowOptions {
  /** Whether a window's figures disagree; one API request (plus pages) each. */
  disagrees: (window: DayWindow) => Promise<boolean>;
  /** Whether another request may be made; when not, the windows still to split are reported unresolved. */
  canSpend: () => boolean;
  /** Measure the newer half of each window first, so a budget that runs out leaves the older days unresolved. */
  newestFirst?: boolean;
}

/**
 * Halves a disagreeing window down to single days: k bad days of n cost about 2k·log2(n) requests instead of n. A
 * window whose halves both agree (the API changed between requests) is reported undivided.
 */
export async function narrowDays(window: DayWindow, options: NarrowOptions): Promise<NarrowedDays> {
  const days: string[] = [];
  const unresolved: DayWindow[] = [];
  const undivided: DayWindow[] = [];
  const queue: DayWindow[] = [window];
  while (queue.length) {
    const current = queue.shift()!;
    if (current.from === current.to) {
      days.push(current.from);
      continue;
    }
    let found = false;
    const both = halves(current);
    for (const half of options.newestFirst ? both.reverse() : both) {
      // A half the budget has no room for, or whose request a bounding budget refuses, stays unresolved.
      const disagrees = options.canSpend() ? await unlessSpent(options.disagrees(half)) : undefined;
      if (disagrees === undefined) unresolved.push(half);
      else if (disagrees) queue.push(half);
      if (disagrees !== false) found = true;
    }
    if (!found) undivided.push(current);
  }
  return { days: days.sort(), unresolved: mergeWindows(unresolved), undivided: mergeWindows(undivided) };
}

export function halves(window: DayWindow): [DayWindow, DayWindow] {
  const length = eachDay(window.from, window.to).length;
  const lastOfFirst = addDays(window.from, Math.floor(length / 2) - 1);
  return [
    { from: window.from, to: lastOfFirst },
    { from: addDays(lastOfFirst, 1), to: window.to },
  ];
}

/** Sorted, with adjacent or overlapping windows joined, so `backfill --from --to` needs as few runs as possible. */
export function mergeWindows(windows: DayWindow[]): DayWindow[] {
  return joinWindows(windows.map((window) => ({ window }))).map((joined) => joined.window);
}

/** As mergeWindows, each joined window with the distinct tags of the windows it joined. */
export function joinWindows<T>(
  parts: ReadonlyArray<{ window: DayWindow; tag?: T }>,
): Array<{ window: DayWindow; tags: T[] }> {
  const sorted = [...parts].sort((a, b) => a.window.from.localeCompare(b.window.from));
  const joined: Array<{ window: DayWindow; tags: T[] }> = [];
  for (const { window, tag } of sorted) {
    let last = joined.at(-1);
    if (last && addDays(last.window.to, 1) >= window.from) {
      if (window.to > last.window.to) last.window.to = window.to;
    } else {
      joined.push((last = { window: { ...window }, tags: [] }));
    }
    if (tag !== undefined && !last.tags.includes(tag)) last.tags.push(tag);
  }
  return joined;
}

/** Consecutive days as windows. */
export function daysAsWindows(days: string[]): DayWindow[] {
  return mergeWindows(days.map((day) => ({ from: day, to: day })));
}
