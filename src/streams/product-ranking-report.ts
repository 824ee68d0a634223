import { z } from 'zod';
import { RANGE_PARAMS, defineEndpoint, rangeQuery, type EngineFilter, type RangeFilter } from '../api/endpoint.js';
import { confidenceInterval, count, id, infoCount, optional, pagingInfo, records } from '../api/schemas.js';
import { extraOf } from './extra.js';
import { ciColumns } from './measures.js';
import type { SourcePage } from './stream.js';

/*
 * The product ranking (spec endpoint 19) as data: its metrics and subjects, record schema and endpoint, read by the
 * streams that ask it (by day, and by day and engine).
 */

/** The ranking metrics and subjects of spec endpoint 19; each pair is its own ranking. */
export const RANKING_METRICS = ['visibility', 'recommendation'] as const;
export const RANKING_SUBJECTS = ['brand', 'competitor'] as const;

export type Metric = (typeof RANKING_METRICS)[number];
export type Subject = (typeof RANKING_SUBJECTS)[number];
/** One ranking of the endpoint, a slice's own. */
export type Ranking = { metric: Metric; subject: Subject };

/** Slices of every metric and subject pair, their keys led by `metric-subject/`. */
export function perRanking<S>(slicesOf: (ranking: Ranking, prefix: string) => S[]): S[] {
  return RANKING_METRICS.flatMap((metric) =>
    RANKING_SUBJECTS.flatMap((subject) => slicesOf({ metric, subject }, `${metric}-${subject}/`)),
  );
}

/** A slice's pair, as its rows key it. */
export const rankingOf = ({ params: { metric, subject } }: { params: Ranking }): Ranking => ({ metric, subject });

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
  info: z.looseObject({ ...pagingInfo, shopping_conversations: optional(infoCount) }),
});

export type ProductRankingRow = z.infer<typeof productRankingRowSchema>;

export interface ProductRankingOptions extends RangeFilter, EngineFilter {
  topicIds?: readonly number[];
  metric?: Metric;
  subject?: Subject;
  order?: 'asc' | 'desc';
}

export const productRankingEndpoint = defineEndpoint({
  name: 'products/ranking',
  path: () => ['products', 'ranking'],
  params: [...RANGE_PARAMS, 'topic_ids', 'metric', 'subject', 'order'],
  query: (o: ProductRankingOptions) => ({
    ...rangeQuery(o),
    topic_ids: o.topicIds,
    metric: o.metric,
    subject: o.subject,
    order: o.order,
  }),
  envelope: productRankingEnvelopeSchema,
  record: productRankingRowSchema,
  maxPageSize: PRODUCT_RANKING_MAX_PAGE_SIZE,
});

/** A ranked product's columns, the same in the ranking over the brand's engines and in the ranking per engine. */
export function productColumns(record: ProductRankingRow) {
  return {
    product_id: record.id,
    rank: record.rank,
    label: record.label,
    title: record.title,
    category: record.category ?? null,
    price: record.price ?? null,
    rating: record.rating ?? null,
    reviews: record.reviews ?? null,
    visibility: record.visibility ?? null,
    recommendation: record.recommendation ?? null,
    image_url: record.image_url ?? null,
    ...ciColumns(record.confidence_interval),
    _extra: extraOf(productRankingRowSchema, record),
  };
}

/** The answers of a ranking that were shopping answers, and how many products it ranked, from its last page. */
export function shoppingColumns(page: SourcePage<ProductRankingRow>) {
  const info = page.info as z.infer<typeof productRankingEnvelopeSchema>['info'];
  return {
    shopping_conversations: info.shopping_conversations ?? null,
    total_rows: page.totalRows ?? null,
    _extra: extraOf(productRankingEnvelopeSchema.shape.info, info),
  };
}
