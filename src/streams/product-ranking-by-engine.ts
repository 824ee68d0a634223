import { ENGINE_BREAKDOWN_SETTINGS, perDayAndEngine, type EngineSlice } from './by-engine-slicing.js';
import {
  perRanking,
  productRankingEndpoint,
  productColumns,
  rankingOf,
  shoppingColumns,
  type ProductRankingRow,
  type Ranking,
} from './product-ranking-report.js';
import { defineStream, replacing, type RowContext } from './stream.js';
import { sliceRange } from './windows.js';

type RankingEngineSlice = EngineSlice<Ranking>;

/** A row's key columns, which are also the scope its slice replaces. */
const keyOf = ({ brandId, slice }: RowContext<RankingEngineSlice>) => ({
  brand_id: brandId,
  day: slice.day,
  engine: slice.params.engine,
  ...rankingOf(slice),
});

/**
 * Product ranking (spec endpoint 19) per brand, day and ONE engine, for each metric and subject: the slice's engine is
 * all that says what a row covers. Opt-in: four calls per day and engine (docs/syncing.md, "What each stream costs").
 */
export const productRankingByEngine = defineStream({
  name: 'product_ranking_by_engine',
  endpoint: productRankingEndpoint,
  settings: ENGINE_BREAKDOWN_SETTINGS,
  needs: ['engines'],
  optIn: true,
  slices: (input): RankingEngineSlice[] => perRanking((ranking, prefix) => perDayAndEngine(input, ranking, prefix)),
  targets: (context) =>
    replacing(['product_ranking_engine_daily', 'product_ranking_shopping_engine_daily'], keyOf(context)),
  read: ({ client, brandId, slice, signal }) =>
    client.read(productRankingEndpoint, brandId, {
      ...sliceRange(slice),
      engines: [slice.params.engine],
      ...rankingOf(slice),
      order: 'desc',
      signal,
    }),
  recordId: (record: ProductRankingRow) => record.id,
  rows: (record, context) => ({ product_ranking_engine_daily: [{ ...keyOf(context), ...productColumns(record) }] }),
  infoRows: (page, context) => ({
    product_ranking_shopping_engine_daily: [{ ...keyOf(context), ...shoppingColumns(page) }],
  }),
});
