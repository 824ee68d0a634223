import { ENGINE_BREAKDOWN_SETTINGS, perDayAndEngine, type EngineSlice } from './by-engine-slicing.js';
import { visibilityMeasures } from './measures.js';
import { defineStream, replacing } from './stream.js';
import { visibilityFacts, visibilityTopicsEndpoint, type VisibilityRow } from './visibility-report.js';
import { sliceRange } from './windows.js';

// In visibilityFacts' order: a topic's facts, its brands', its scenarios', and theirs.
const TABLES = [
  'visibility_topic_engine_daily',
  'visibility_topic_brand_engine_daily',
  'visibility_scenario_engine_daily',
  'visibility_scenario_brand_engine_daily',
] as const;

/** A one-day request's `change` is against the day before: the column says so. */
function measures(entry: Parameters<typeof visibilityMeasures>[0]) {
  const { change, ...rest } = visibilityMeasures(entry);
  return { ...rest, change_vs_previous_day: change };
}

/**
 * Visibility by topic and scenario (spec endpoint 16) per brand, day and ONE engine, so each engine's visibility is the
 * API's own answer. Engines are the brand's (from the report's echo) or `sync.engineBreakdown`; a call per day and engine.
 */
export const visibilityByEngine = defineStream({
  name: 'visibility_by_engine',
  endpoint: visibilityTopicsEndpoint,
  settings: ENGINE_BREAKDOWN_SETTINGS,
  needs: ['engines'],
  slices: (input): EngineSlice[] => perDayAndEngine(input, {}),
  targets: ({ brandId, slice }) =>
    replacing(TABLES, { brand_id: brandId, day: slice.day, engine: slice.params.engine }),
  read: ({ client, brandId, slice, signal }) =>
    client.read(visibilityTopicsEndpoint, brandId, {
      ...sliceRange(slice),
      engines: [slice.params.engine],
      includeScenarios: true,
      signal,
    }),
  recordId: (row: VisibilityRow) => row.topic_id,
  rows: (row, { brandId, slice }) =>
    visibilityFacts(row, { brand_id: brandId, day: slice.day, engine: slice.params.engine }, measures, TABLES),
});
