import { perDay } from './slicing.js';
import type { SliceParam, SlicePlan, SlicePlanInput } from './stream.js';
import { stringParam } from './slice-params.js';

/**
 * One slice per day and engine, for the per-engine breakdowns: a report asked with `engines=[engine]` covers that
 * engine alone, so its rows say which engine they count. The engines are the brand's (`Dimensions.engines`).
 */
export function perDayAndEngine(input: SlicePlanInput, params: Record<string, SliceParam> = {}, prefix = ''): SlicePlan[] {
  return (input.dimensions.engines ?? []).flatMap((engine) => perDay(input, { ...params, engine }, `${prefix}${engine}/`));
}

/** The engine a per-engine slice asks for. */
export function engineOf(slice: SlicePlan): string {
  return stringParam(slice, 'engine');
}
