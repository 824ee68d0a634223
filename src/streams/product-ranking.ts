import {
  RANKING_METRICS,
  RANKING_SUBJECTS,
  productRankingEndpoint,
  productColumns,
  shoppingColumns,
  type Metric,
  type ProductRankingRow,
  type Subject,
} from './product-ranking-report.js';
import { perDay } from './slicing.js';
import { defineStream, type DaySlice, type SlicePlanInput } from './stream.js';
import { sliceRange } from './windows.js';

export * from './product-ranking-report.js';

type RankingSlice = DaySlice<{ metric: Metric; subject: Subject }>;

const rankingOf = ({ params }: RankingSlice) => ({ metric: params.metric, subject: params.subject });

/**
 * Product ranking (spec endpoint 19) per brand and day, for each metric and subject: four slices a day, since
 * each pair ranks different products. Ranked highest first (order desc), so rank follows the page order.
 */
export const productRanking = defineStream({
  name: 'product_ranking',
  endpoint: productRankingEndpoint,
  slices: (input: SlicePlanInput): RankingSlice[] =>
    RANKING_METRICS.flatMap((metric) =>
      RANKING_SUBJECTS.flatMap((subject) => perDay(input, { metric, subject }, `${metric}-${subject}/`)),
    ),
  targets: ({ brandId, slice }) => {
    const scope = { brand_id: brandId, day: slice.day, ...rankingOf(slice) };
    return [
      { table: 'product_ranking_daily', mode: 'replace', scope },
      { table: 'product_ranking_shopping_daily', mode: 'replace', scope },
    ];
  },
  read: ({ client, brandId, slice, signal }) =>
    client.read(productRankingEndpoint, brandId, { ...sliceRange(slice), ...rankingOf(slice), order: 'desc', signal }),
  recordId: (record: ProductRankingRow) => record.id,
  rows: (record, { brandId, slice }) => ({
    product_ranking_daily: [
      {
        brand_id: brandId,
        day: slice.day,
        ...rankingOf(slice),
        ...productColumns(record),
      },
    ],
  }),
  infoRows: (page, { brandId, slice }) => ({
    product_ranking_shopping_daily: [
      {
        brand_id: brandId,
        day: slice.day,
        ...rankingOf(slice),
        ...shoppingColumns(page),
      },
    ],
  }),
});
