import { z } from 'zod';
import { RANGE_PARAMS, defineEndpoint, rangeQuery, type EngineFilter, type RangeFilter } from '../api/endpoint.js';
import { confidenceInterval, count, id, optional, queryEcho, ratio, records } from '../api/schemas.js';

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
