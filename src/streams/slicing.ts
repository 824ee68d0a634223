import type { SliceParam, SlicePlan, SlicePlanInput } from './stream.js';

/** One slice per day: the unit of the daily facts. */
export function perDay(input: SlicePlanInput, params: Record<string, SliceParam> = {}, prefix = ''): SlicePlan[] {
  return input.days.map((day) => ({ key: `${prefix}${day}`, day, from: day, to: day, params }));
}

/** One slice over the run's whole window (reports whose rows are already per day, like the citations series). */
export function perWindow(input: SlicePlanInput, params: Record<string, SliceParam> = {}, prefix = ''): SlicePlan[] {
  const from = input.days[0];
  const to = input.days.at(-1);
  if (!from || !to) return [];
  return [{ key: `${prefix}${from}..${to}`, day: null, from, to, params }];
}

/** One slice per run: full-refresh entities. */
export function once(input: SlicePlanInput, params: Record<string, SliceParam> = {}, key = 'all'): SlicePlan[] {
  return [{ key, day: null, from: input.days[0] ?? null, to: input.days.at(-1) ?? null, params }];
}
