import { extraOf } from './extra.js';
import { visibilityMeasures } from './measures.js';
import { perDay } from './slicing.js';
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

export * from './visibility-report.js';

const FACT_TABLES = [
  'visibility_topic_daily',
  'visibility_topic_brand_daily',
  'visibility_scenario_daily',
  'visibility_scenario_brand_daily',
] as const;

/**
 * Visibility by topic and scenario (spec endpoint 16, with the scenarios), one report per brand and day. It is the
 * only read that names topics and scenarios, so it also keeps them as dimensions (with the last day seen). Each
 * ratio keeps its numerator (mentioned_conversations), so any window's visibility is exact. A topic with no
 * answers that day has no row: total_rows counts the topics with answers.
 */
export const visibility = defineStream({
  name: 'visibility',
  endpoint: visibilityTopicsEndpoint,
  provides: {
    topicIds: async (source, brandId) => (await source.brandColumn('topics', 'id', brandId)).map(Number),
    // Asked with no engine list, the report applies "the engines of the brand" and its info.query names them.
    engines: (source, brandId) => source.echoedEngines('visibility', brandId),
  },
  slices: (input) => perDay(input),
  targets: ({ brandId, slice }) => [
    // Merged by key: the visibility report is the only read that names topics and scenarios.
    { table: 'topics', mode: 'merge' },
    { table: 'scenarios', mode: 'merge' },
    ...FACT_TABLES.map((table) => ({ table, mode: 'replace' as const, scope: { brand_id: brandId, day: slice.day } })),
  ],
  read: ({ client, brandId, slice, signal }) =>
    client.read(visibilityTopicsEndpoint, brandId, { ...sliceRange(slice), includeScenarios: true, signal }),
  recordId: (row: VisibilityRow) => row.topic_id,
  rows: (row, { brandId, slice }) => {
    const { day } = slice;
    const brandRows = (brands: VisibilityBrand[], key: { topic_id: number } | { scenario_id: number; topic_id: number }) =>
      brands.map((brand) => ({
        brand_id: brandId,
        day,
        ...key,
        brand_name: brand.name,
        website: brand.website ?? null,
        is_own_brand: brand.is_own_brand,
        ...visibilityMeasures(brand),
        _extra: extraOf(visibilityBrandSchema, brand),
      }));
    const scenarios = row.scenarios ?? [];
    return {
      topics: [{ brand_id: brandId, id: row.topic_id, name: row.name, _extra: null }],
      scenarios: scenarios.map((scenario) => ({
        brand_id: brandId,
        id: scenario.scenario_id,
        topic_id: row.topic_id,
        text: scenario.text,
        _extra: null,
      })),
      visibility_topic_daily: [
        { brand_id: brandId, day, topic_id: row.topic_id, ...visibilityMeasures(row), days: row.days, _extra: extraOf(visibilityRowSchema, row) },
      ],
      visibility_topic_brand_daily: brandRows(row.brands, { topic_id: row.topic_id }),
      visibility_scenario_daily: scenarios.map((scenario) => ({
        brand_id: brandId,
        day,
        scenario_id: scenario.scenario_id,
        topic_id: row.topic_id,
        ...visibilityMeasures(scenario),
        days: scenario.days,
        _extra: extraOf(visibilityScenarioSchema, scenario),
      })),
      visibility_scenario_brand_daily: scenarios.flatMap((scenario) =>
        brandRows(scenario.brands, { scenario_id: scenario.scenario_id, topic_id: row.topic_id }),
      ),
    };
  },
});
