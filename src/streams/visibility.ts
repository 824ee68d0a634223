import { z } from 'zod';
import { RANGE_PARAMS, defineEndpoint, rangeQuery, type EngineFilter, type RangeFilter } from '../api/endpoint.js';
import { confidenceInterval, count, id, optional, queryEcho, ratio, records } from '../api/schemas.js';
import { extraOf } from './extra.js';
import { visibilityMeasures } from './measures.js';
import { perDay } from './slicing.js';
import { defineStream } from './stream.js';
import { sliceRange } from './windows.js';

/** The measures every entry of the report shares (topic, scenario, brand of either). */
const measureFields = {
  conversations: count,
  visibility: ratio,
  change: optional(z.number()),
  confidence_interval: optional(confidenceInterval),
  share_of_voice: optional(z.number()),
};

export const visibilityBrandSchema = z.looseObject({
  name: z.string(),
  website: optional(z.string()),
  is_own_brand: z.boolean(),
  ...measureFields,
});

export const visibilityScenarioSchema = z.looseObject({
  scenario_id: id,
  text: z.string(),
  days: count,
  ...measureFields,
  brands: z.array(visibilityBrandSchema),
});

export const visibilityRowSchema = z.looseObject({
  topic_id: id,
  name: z.string(),
  days: count,
  ...measureFields,
  brands: z.array(visibilityBrandSchema),
  scenarios: optional(z.array(visibilityScenarioSchema)),
});

export const visibilityEnvelopeSchema = z.looseObject({
  data: records,
  info: z.looseObject({ query: queryEcho, total_rows: optional(count) }),
});

export type VisibilityRow = z.infer<typeof visibilityRowSchema>;
export type VisibilityBrand = z.infer<typeof visibilityBrandSchema>;
export type VisibilityScenario = z.infer<typeof visibilityScenarioSchema>;

export interface VisibilityTopicsOptions extends RangeFilter, EngineFilter {
  topicIds?: readonly number[];
  includeScenarios?: boolean;
}

/** Visibility by topic (spec endpoint 16): one report, not paged; `total_rows` counts the topics with answers. */
export const visibilityTopicsEndpoint = defineEndpoint({
  path: () => ['reports', 'visibility', 'topics'],
  params: [...RANGE_PARAMS, 'topic_ids', 'include_scenarios'],
  query: (o: VisibilityTopicsOptions) => ({ ...rangeQuery(o), topic_ids: o.topicIds, include_scenarios: o.includeScenarios }),
  envelope: visibilityEnvelopeSchema,
  record: visibilityRowSchema,
});

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
  provides: { topicIds: async (source, brandId) => (await source.brandColumn('topics', 'id', brandId)).map(Number) },
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
