import { z } from 'zod';
import { RANGE_PARAMS, defineEndpoint, rangeQuery, type EngineFilter, type RangeFilter } from '../api/endpoint.js';
import { confidenceInterval, count, id, optional, pagingInfo, records } from '../api/schemas.js';

/*
 * The product ranking (spec endpoint 19) as data: its metrics and subjects, record schema and endpoint, read by the
 * streams that ask it (by day, and by day and engine).
 */

/** The ranking metrics and subjects of spec endpoint 19; each pair is its own ranking. */
export const RANKING_METRICS = ['visibility', 'recommendation'] as const;
export const RANKING_SUBJECTS = ['brand', 'competitor'] as const;

export type Metric = (typeof RANKING_METRICS)[number];
export type Subject = (typeof RANKING_SUBJECTS)[number];

/** page_size of product ranking is 1 to 50 (spec, "Limits"; endpoint 19). */
export const PRODUCT_RANKING_MAX_PAGE_SIZE = 50;

export const productRankingRowSchema = z.looseObject({
  id,
  rank: z.int(),
  label: z.string(),
  title: z.string(),
  category: optional(z.string()),
  price: optional(z.string()),
  rating: optional(z.number()),
  reviews: optional(count),
  visibility: optional(z.number()),
  recommendation: optional(z.number()),
  image_url: optional(z.string()),
  confidence_interval: optional(confidenceInterval),
});

export const productRankingEnvelopeSchema = z.looseObject({
  data: records,
  info: z.looseObject({ ...pagingInfo, shopping_conversations: optional(count) }),
});

export type ProductRankingRow = z.infer<typeof productRankingRowSchema>;

export type ProductRankingInfo = z.infer<typeof productRankingEnvelopeSchema>['info'];

export interface ProductRankingOptions extends RangeFilter, EngineFilter {
  topicIds?: readonly number[];
  metric?: Metric;
  subject?: Subject;
  order?: 'asc' | 'desc';
}

export const productRankingEndpoint = defineEndpoint({
  path: () => ['products', 'ranking'],
  params: [...RANGE_PARAMS, 'topic_ids', 'metric', 'subject', 'order'],
  query: (o: ProductRankingOptions) => ({ ...rangeQuery(o), topic_ids: o.topicIds, metric: o.metric, subject: o.subject, order: o.order }),
  envelope: productRankingEnvelopeSchema,
  record: productRankingRowSchema,
  maxPageSize: PRODUCT_RANKING_MAX_PAGE_SIZE,
});
