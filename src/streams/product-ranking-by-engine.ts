import { productRankingEnvelopeSchema, productRankingRowSchema, type ProductRankingInfo, type ProductRankingRow } from '../api/index.js';
import { engineOf, perDayAndEngine } from './by-engine-slicing.js';
import { extraOf } from './extra.js';
import { ciColumns } from './measures.js';
import { RANKING_METRICS, RANKING_SUBJECTS } from './product-ranking.js';
import { stringParam } from './slice-params.js';
import { defineStream, type SlicePlan } from './stream.js';
import { sliceRange } from './windows.js';

type Metric = (typeof RANKING_METRICS)[number];
type Subject = (typeof RANKING_SUBJECTS)[number];

function rankingOf(slice: SlicePlan): { metric: Metric; subject: Subject } {
  return { metric: stringParam(slice, 'metric') as Metric, subject: stringParam(slice, 'subject') as Subject };
}

/**
 * Product ranking (spec endpoint 19) per brand, day and ONE engine (`engines=[engine]`), for each metric and subject:
 * four slices per day and engine. The ranking does not echo its query, so the engine of the slice is the only
 * statement of what a row covers. Off by default: it costs four calls per day and engine (docs/syncing.md, "What
 * each stream costs").
 */
export const productRankingByEngine = defineStream<ProductRankingRow>({
  name: 'product_ranking_by_engine',
  phase: 2,
  slices: (input) =>
    RANKING_METRICS.flatMap((metric) => RANKING_SUBJECTS.flatMap((subject) => perDayAndEngine(input, { metric, subject }, `${metric}-${subject}/`))),
  targets: ({ brandId, slice }) => {
    const scope = { brand_id: brandId, day: slice.day!, engine: engineOf(slice), ...rankingOf(slice) };
    return [
      { table: 'product_ranking_engine_daily', mode: 'replace', scope },
      { table: 'product_ranking_shopping_engine_daily', mode: 'replace', scope },
    ];
  },
  read: ({ client, brandId, slice, signal }) =>
    client.productRanking(brandId, { ...sliceRange(slice), engines: [engineOf(slice)], ...rankingOf(slice), order: 'desc', signal }),
  recordId: (record) => record.id,
  rows: (record, { brandId, slice }) => ({
    product_ranking_engine_daily: [
      {
        brand_id: brandId,
        day: slice.day!,
        engine: engineOf(slice),
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
      product_ranking_shopping_engine_daily: [
        {
          brand_id: brandId,
          day: slice.day!,
          engine: engineOf(slice),
          ...rankingOf(slice),
          shopping_conversations: info.shopping_conversations ?? null,
          total_rows: page.totalRows ?? null,
          _extra: extraOf(productRankingEnvelopeSchema.shape.info, info),
        },
      ],
    };
  },
});
