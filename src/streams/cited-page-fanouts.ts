import { RANGE_PARAMS, defineEndpoint, rangeQuery, type EngineFilter, type RangeFilter } from '../api/endpoint.js';
import { MAX_PAGE_SIZE } from '../api/paginate.js';
import { pagedEnvelopeSchema } from '../api/schemas.js';
import { fanoutCitedColumns, fanoutCitedSchema, type FanoutCited } from './fanout-cited-record.js';
import { perWindow } from './slicing.js';
import { defineStream, type WindowSlice } from './stream.js';
import { sliceRange, windowColumns } from './windows.js';

export interface CitedPageFanoutsOptions extends RangeFilter, EngineFilter {
  /** The cited page, as the brand's tracked URL spells it. */
  url: string;
  topicIds?: readonly number[];
}

/** Endpoint 15 asked by page: the same path as by domain, with `url` instead (the API takes one of the two). */
export const citedPageFanoutsEndpoint = defineEndpoint({
  name: 'fanouts/cited',
  path: () => ['fanouts', 'cited'],
  params: [...RANGE_PARAMS, 'topic_ids', 'url'],
  query: (o: CitedPageFanoutsOptions) => ({ ...rangeQuery(o), topic_ids: o.topicIds, url: o.url }),
  envelope: pagedEnvelopeSchema,
  record: fanoutCitedSchema,
  maxPageSize: MAX_PAGE_SIZE,
});

/**
 * The searches that led answers to cite one of the brand's tracked pages (spec endpoint 15 with `url`), per brand, page
 * and run window: counts are of the whole window, so rows are keyed by the window asked and a slice replaces its own.
 */
export const citedPageFanouts = defineStream({
  name: 'cited_page_fanouts',
  endpoint: citedPageFanoutsEndpoint,
  needs: ['pages'],
  slices: (input): Array<WindowSlice<{ url: string }>> =>
    input.dimensions.pages.flatMap((url) => perWindow(input, { url }, `${url}/`)),
  targets: ({ brandId, slice }) => [
    {
      table: 'cited_page_fanouts',
      mode: 'replace',
      scope: { brand_id: brandId, url: slice.params.url, ...windowColumns(slice) },
    },
  ],
  read: ({ client, brandId, slice, signal }) =>
    client.read(citedPageFanoutsEndpoint, brandId, { ...sliceRange(slice), url: slice.params.url, signal }),
  recordId: (record: FanoutCited) => record.id,
  rows: (record, { brandId, slice }) => ({
    cited_page_fanouts: [
      {
        brand_id: brandId,
        url: slice.params.url,
        ...windowColumns(slice),
        ...fanoutCitedColumns(record),
      },
    ],
  }),
});
