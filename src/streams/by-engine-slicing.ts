import { z } from 'zod';
import { perDay } from './slicing.js';
import type { DaySlice, SliceParams, SlicePlanInput } from './stream.js';

/** The `sync` setting both per-engine streams read (merged into the config schema through the registry). */
export const ENGINE_BREAKDOWN_SETTINGS = {
  /**
   * Engines the per-engine streams break reports down by, one slice per day and engine; default the brand's engines
   * as the visibility report's `info.query` names them (docs/tables.md, "Engines").
   */
  engineBreakdown: z.array(z.string().min(1)).min(1).optional(),
};

export type EngineSlice<P extends SliceParams = Record<never, never>> = DaySlice<P & { engine: string }>;

/**
 * One slice per day and engine, for the per-engine breakdowns: a report asked with `engines=[engine]` covers that
 * engine alone, so its rows say which engine they count. The engines are the configured ones, else the brand's.
 */
export function perDayAndEngine<P extends SliceParams>(
  input: SlicePlanInput<typeof ENGINE_BREAKDOWN_SETTINGS>,
  params: P,
  prefix = '',
): Array<EngineSlice<P>> {
  const engines = input.sync.engineBreakdown ?? input.dimensions.engines;
  return engines.flatMap((engine) => perDay(input, { ...params, engine }, `${prefix}${engine}/`));
}
