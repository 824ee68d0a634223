import { z } from 'zod';
import { RANGE_PARAMS, defineEndpoint, rangeQuery, type EngineFilter, type RangeFilter } from '../api/endpoint.js';
import { confidenceInterval, count, id, infoCount, optional, queryEcho, ratio, records } from '../api/schemas.js';
import { extraOf } from './extra.js';
import type { visibilityMeasures } from './measures.js';
import type { RowsByTable } from './stream.js';

/*
 * The visibility report (spec endpoint 16) as data: its record schemas and endpoint, read by the streams that ask
 * it (by day, and by day and engine).
 */

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
  info: z.looseObject({ query: queryEcho, total_rows: optional(infoCount) }),
});

export type VisibilityRow = z.infer<typeof visibilityRowSchema>;
export type VisibilityBrand = z.infer<typeof visibilityBrandSchema>;

export interface VisibilityTopicsOptions extends RangeFilter, EngineFilter {
  topicIds?: readonly number[];
  includeScenarios?: boolean;
}

/** Visibility by topic (spec endpoint 16): one report, not paged; `total_rows` counts the topics with answers. */
export const visibilityTopicsEndpoint = defineEndpoint({
  name: 'reports/visibility/topics',
  path: () => ['reports', 'visibility', 'topics'],
  params: [...RANGE_PARAMS, 'topic_ids', 'include_scenarios'],
  query: (o: VisibilityTopicsOptions) => ({
    ...rangeQuery(o),
    topic_ids: o.topicIds,
    include_scenarios: o.includeScenarios,
  }),
  envelope: visibilityEnvelopeSchema,
  record: visibilityRowSchema,
});

type Measures = (entry: Parameters<typeof visibilityMeasures>[0]) => object;

/** The tables of a topic's facts: the topic's, its brands', its scenarios', and their brands'. */
type FactTables = readonly [topic: string, topicBrands: string, scenario: string, scenarioBrands: string];

/**
 * The fact rows of one topic of the report, keyed by `key` (brand, day, and engine when per engine) and measured by
 * `measures`, so the report over the brand's engines and per engine fill their tables alike.
 */
export function visibilityFacts(
  row: VisibilityRow,
  key: object,
  measures: Measures,
  [topic, topicBrands, scenario, scenarioBrands]: FactTables,
): RowsByTable {
  const brandRows = (
    brands: VisibilityBrand[],
    owner: { topic_id: number } | { scenario_id: number; topic_id: number },
  ) =>
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
    [topic]: [
      { ...key, topic_id: row.topic_id, ...measures(row), days: row.days, _extra: extraOf(visibilityRowSchema, row) },
    ],
    [topicBrands]: brandRows(row.brands, { topic_id: row.topic_id }),
    [scenario]: scenarios.map((scenario) => ({
      ...key,
      scenario_id: scenario.scenario_id,
      topic_id: row.topic_id,
      ...measures(scenario),
      days: scenario.days,
      _extra: extraOf(visibilityScenarioSchema, scenario),
    })),
    [scenarioBrands]: scenarios.flatMap((scenario) =>
      brandRows(scenario.brands, { scenario_id: scenario.scenario_id, topic_id: row.topic_id }),
    ),
  };
}
