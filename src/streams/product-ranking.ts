import { productRankingEnvelopeSchema, productRankingRowSchema, type ProductRankingInfo, type ProductRankingRow } from '../api/index.js';
import { extraOf } from './extra.js';
import { ciColumns } from './measures.js';
import { perDay } from './slicing.js';
import { defineStream, type SlicePlan, type SlicePlanInput } from './stream.js';
import { stringParam } from './slice-params.js';
import { sliceRange } from './windows.js';

/** The ranking metrics and subjects of spec endpoint 19; each pair is its own ranking. */
export const RANKING_METRICS = ['visibility', 'recommendation'] as const;
export const RANKING_SUBJECTS = ['brand', 'competitor'] as const;

type Metric = (typeof RANKING_METRICS)[number];
type Subject = (typeof RANKING_SUBJECTS)[number];

function rankingOf(slice: SlicePlan): { metric: Metric; subject: Subject } {
  return { metric: stringParam(slice, 'metric') as Metric, subject: stringParam(slice, 'subject') as Subject };
}

/**
 * Product ranking (spec endpoint 19) per brand and day, for each metric and subject: four slices a day, since
 * each pair ranks different products. Ranked highest first (order desc), so rank follows the page order.
 */
export const productRanking = defineStream<ProductRankingRow>({
  name: 'product_ranking',
  phase: 1,
  slices: (input: SlicePlanInput) =>
    RANKING_METRICS.flatMap((metric) => RANKING_SUBJECTS.flatMap((subject) => perDay(input, { metric, subject }, `${metric}-${subject}/`))),
  targets: ({ brandId, slice }) => {
    const scope = { brand_id: brandId, day: slice.day!, ...rankingOf(slice) };
    return [
      { table: 'product_ranking_daily', mode: 'replace', scope },
      { table: 'product_ranking_shopping_daily', mode: 'replace', scope },
    ];
  },
  read: ({ client, brandId, slice, signal }) =>
    client.productRanking(brandId, { ...sliceRange(slice), ...rankingOf(slice), order: 'desc', signal }),
  recordId: (record) => record.id,
  rows: (record, { brandId, slice }) => ({
    product_ranking_daily: [
      {
        brand_id: brandId,
        day: slice.day!,
        ...rankingOf(slice),
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
      },
    ],
  }),
  infoRows: (page, { brandId, slice }) => {
    const info = page.info as ProductRankingInfo;
    return {
      product_ranking_shopping_daily: [
        {
          brand_id: brandId,
          day: slice.day!,
          ...rankingOf(slice),
          shopping_conversations: info.shopping_conversations ?? null,
          total_rows: page.totalRows ?? null,
          _extra: extraOf(productRankingEnvelopeSchema.shape.info, info),
        },
      ],
    };
  },
});
