import { conversationsEndpoint } from '../streams/conversations.js';
import { figure, rangeOf, type FigureFamily } from './figure.js';
import { warehouseNumber } from './warehouse-figures.js';

/**
 * Answers of the window (spec endpoint 13, each engine by default): the API's `total_rows` of one page of one record
 * against the rows of `conversations` dated in the window.
 */
export const conversationsFamily: FigureFamily = {
  name: 'conversations',
  async measure({ client, connection, brandId, signal }, window) {
    let api = 0;
    // One page of one record: its total_rows is the count, and leaving the loop stops the paging.
    for await (const page of client.read(conversationsEndpoint, brandId, { ...rangeOf(window), pageSize: 1, signal })) {
      api = page.totalRows ?? page.records.length;
      break;
    }
    const warehouse = await warehouseNumber(
      connection,
      'SELECT count(*) FROM conversations WHERE brand_id = $1 AND "day" BETWEEN $2::DATE AND $3::DATE',
      [brandId, window.from, window.to],
    );
    return [figure('conversations', 'answers', api, warehouse)];
  },
};
