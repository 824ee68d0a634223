import { countCitedPages, trackedUrlRecord } from '../reports/tracked-urls.js';
import { LIMITS } from '../spec-enums.js';
import { pageOf, pagedInfo, readAnswerFilter, readPaging } from './common.js';
import type { Route } from './route.js';

/** Endpoint 3. info.citations and cited_urls cover every page that passes the filters, not just the page shown. */
export const trackedUrlsRoute: Route = {
  method: 'GET',
  pattern: /^\/tracked-urls$/,
  name: 'tracked-urls',
  handle(context) {
    const { sim, world, query } = context;
    const filter = readAnswerFilter(context, { engineDefault: 'all', topics: true });
    const groupId = query.int('group_id', { min: 1 });
    const ungrouped = query.bool('ungrouped');
    const search = query.string('search', { min: 1, max: LIMITS.trackedUrlSearchMax });
    const sort = query.oneOf('sort', ['created_at', 'citations'] as const) ?? 'created_at';
    const order = query.oneOf('order', ['asc', 'desc'] as const) ?? 'desc';
    const paging = readPaging(query);
    if (groupId !== undefined && ungrouped === true)
      query.fail('ungrouped', `cannot be true together with ${query.wire('group_id')}`);
    query.finish();
    const counts = countCitedPages(sim.store, world, filter);
    const needle = search?.toLowerCase();
    const rows = world.trackedUrls
      .filter((page) => groupId === undefined || page.group_id === groupId)
      .filter((page) => ungrouped !== true || page.group_id === undefined)
      .filter(
        (page) =>
          needle === undefined || page.url.toLowerCase().includes(needle) || page.title.toLowerCase().includes(needle),
      )
      .map((page) => trackedUrlRecord(world, page, counts));
    const direction = order === 'asc' ? 1 : -1;
    rows.sort(
      (a, b) =>
        direction * (sort === 'citations' ? a.citations - b.citations : a.created_at.localeCompare(b.created_at)) ||
        direction * (a.id - b.id),
    );
    const citations = rows.reduce((sum, row) => sum + row.citations, 0);
    const citedUrls = rows.filter((row) => row.citations > 0).length;
    return {
      body: {
        data: pageOf(rows, paging),
        info: { citations, cited_urls: citedUrls, ...pagedInfo(paging, rows.length) },
      },
    };
  },
};
