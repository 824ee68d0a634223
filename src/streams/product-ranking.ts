import {
  perRanking,
  productRankingEndpoint,
  productColumns,
  rankingOf,
  shoppingColumns,
  type ProductRankingRow,
  type Ranking,
} from './product-ranking-report.js';
import { perDay } from './slicing.js';
import { defineStream, replacing, type DaySlice, type RowContext, type SlicePlanInput } from './stream.js';
import { sliceRange } from './windows.js';

export * from './product-ranking-report.js';

type RankingSlice = DaySlice<Ranking>;

/** A row's key columns, which are also the scope its slice replaces. */
const keyOf = ({ brandId, slice }: RowContext<RankingSlice>) => ({
  brand_id: brandId,
  day: slice.day,
  ...rankingOf(slice),
});

/**
 * Product ranking (spec endpoint 19) per brand and day, for each metric and subject: four slices a day, since
 * each pair ranks different products. Ranked highest first (order desc), so rank follows the page order.
 */
export const productRanking = defineStream({
  name: 'product_ranking',
  endpoint: productRankingEndpoint,
  slices: (input: SlicePlanInput): RankingSlice[] => perRanking((ranking, prefix) => perDay(input, ranking, prefix)),
  targets: (context) => replacing(['product_ranking_daily', 'product_ranking_shopping_daily'], keyOf(context)),
  read: ({ client, brandId, slice, signal }) =>
    client.read(productRankingEndpoint, brandId, { ...sliceRange(slice), ...rankingOf(slice), order: 'desc', signal }),
  recordId: (record: ProductRankingRow) => record.id,
  rows: (record, context) => ({ product_ranking_daily: [{ ...keyOf(context), ...productColumns(record) }] }),
  infoRows: (page, context) => ({ product_ranking_shopping_daily: [{ ...keyOf(context), ...shoppingColumns(page) }] }),
});
