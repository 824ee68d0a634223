import { eachDay } from '../days.js';
import type { SlicePlan, WindowSlice } from './stream.js';

/** Every day a window slice covers, for replace scopes: the window's rows replace those of the same days. */
export function windowDays(slice: SlicePlan): string[] {
  if (!slice.from || !slice.to) return [];
  return eachDay(slice.from, slice.to);
}

/** The `window_start` / `window_end` columns of tables keyed by the window a report was requested for. */
export function windowColumns(slice: WindowSlice): { window_start: string; window_end: string } {
  return { window_start: slice.from, window_end: slice.to };
}

/** The range filter of a slice: its first and last day, both included by the API. */
export function sliceRange(slice: SlicePlan): { startDate: string; endDate: string } {
  if (!slice.from || !slice.to) throw new Error(`slice ${slice.key} has no range (from/to)`);
  return { startDate: slice.from, endDate: slice.to };
}
