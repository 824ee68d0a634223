import { ENGINE_BREAKDOWN_SETTINGS, perDayAndEngine, type EngineSlice } from './by-engine-slicing.js';
import { extraOf } from './extra.js';
import { visibilityMeasures } from './measures.js';
import { defineStream } from './stream.js';
import {
  visibilityBrandSchema,
  visibilityRowSchema,
  visibilityScenarioSchema,
  visibilityTopicsEndpoint,
  type VisibilityBrand,
  type VisibilityRow,
} from './visibility-report.js';
import { sliceRange } from './windows.js';

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
 * Visibility by topic and scenario (spec endpoint 16) per brand, day and ONE engine (`engines=[engine]`), so how
 * visible the brand is in each engine is the API's own answer, not an estimate. The engines are the brand's, as
 * the visibility report's `info.query` named them in an earlier phase, or `sync.engineBreakdown`. One call per day
 * and engine (docs/syncing.md, "What each stream costs").
 */
export const visibilityByEngine = defineStream({
  name: 'visibility_by_engine',
  endpoint: visibilityTopicsEndpoint,
  settings: ENGINE_BREAKDOWN_SETTINGS,
  needs: ['engines'],
  slices: (input): EngineSlice[] => perDayAndEngine(input, {}),
  targets: ({ brandId, slice }) =>
    TABLES.map((table) => ({ table, mode: 'replace' as const, scope: { brand_id: brandId, day: slice.day, engine: slice.params.engine } })),
  read: ({ client, brandId, slice, signal }) =>
    client.read(visibilityTopicsEndpoint, brandId, { ...sliceRange(slice), engines: [slice.params.engine], includeScenarios: true, signal }),
  recordId: (row: VisibilityRow) => row.topic_id,
  rows: (row, { brandId, slice }) => {
    const key = { brand_id: brandId, day: slice.day, engine: slice.params.engine };
    const brandRows = (brands: VisibilityBrand[], owner: { topic_id: number } | { scenario_id: number; topic_id: number }) =>
      brands.map((brand) => ({
        ...key,
        ...owner,
        brand_name: brand.name,
        website: brand.website ?? null,
        is_own_brand: brand.is_own_brand,
        ...measures(brand),
        _extra: extraOf(visibilityBrandSchema, brand),
      }));
    const scenarios = row.scenarios ?? [];
    return {
      visibility_topic_engine_daily: [
        { ...key, topic_id: row.topic_id, ...measures(row), days: row.days, _extra: extraOf(visibilityRowSchema, row) },
      ],
      visibility_topic_brand_engine_daily: brandRows(row.brands, { topic_id: row.topic_id }),
      visibility_scenario_engine_daily: scenarios.map((scenario) => ({
        ...key,
        scenario_id: scenario.scenario_id,
        topic_id: row.topic_id,
        ...measures(scenario),
        days: scenario.days,
        _extra: extraOf(visibilityScenarioSchema, scenario),
      })),
      visibility_scenario_brand_engine_daily: scenarios.flatMap((scenario) =>
        brandRows(scenario.brands, { scenario_id: scenario.scenario_id, topic_id: row.topic_id }),
      ),
    };
  },
});
