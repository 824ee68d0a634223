import type { DaySlice, SliceParams, SlicePlan, SlicePlanInput, WindowSlice } from './stream.js';

type Input = Pick<SlicePlanInput, 'days'>;

/** One slice per day: the unit of the daily facts. */
export function perDay<P extends SliceParams = Record<never, never>>(
  input: Input,
  params: P = {} as P,
  prefix = '',
): Array<DaySlice<P>> {
  return input.days.map((day) => ({ key: `${prefix}${day}`, day, from: day, to: day, params }));
}

/** One slice over the run's whole window (reports whose rows are already per day, like the citations series). */
export function perWindow<P extends SliceParams = Record<never, never>>(
  input: Input,
  params: P = {} as P,
  prefix = '',
): Array<WindowSlice<P>> {
  const from = input.days[0];
  const to = input.days.at(-1);
  if (!from || !to) return [];
  return [{ key: `${prefix}${from}..${to}`, day: null, from, to, params }];
}

/** One slice per run: full-refresh entities. */
export function once<P extends SliceParams = Record<never, never>>(
  input: Input,
  params: P = {} as P,
  key = 'all',
): Array<SlicePlan<P>> {
  return [{ key, day: null, from: input.days[0] ?? null, to: input.days.at(-1) ?? null, params, snapshot: true }];
}
