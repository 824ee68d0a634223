import { RANGE_PARAMS, defineEndpoint, rangeQuery, type EngineFilter, type RangeFilter } from '../api/endpoint.js';
import { MAX_PAGE_SIZE } from '../api/paginate.js';
import { pagedEnvelopeSchema } from '../api/schemas.js';
import { distinctDomains } from './domains.js';
import { fanoutCitedColumns, fanoutCitedSchema, type FanoutCited } from './fanout-cited-record.js';
import { perWindow } from './slicing.js';
import { defineStream, type WindowSlice } from './stream.js';
import { sliceRange, windowColumns } from './windows.js';

export interface FanoutsCitedOptions extends RangeFilter, EngineFilter {
  topicIds?: readonly number[];
  url?: string;
  domain?: string;
}

export const fanoutsCitedEndpoint = defineEndpoint({
  name: 'fanouts/cited',
  path: () => ['fanouts', 'cited'],
  params: [...RANGE_PARAMS, 'topic_ids', 'url', 'domain'],
  query: (o: FanoutsCitedOptions) => ({ ...rangeQuery(o), topic_ids: o.topicIds, url: o.url, domain: o.domain }),
  envelope: pagedEnvelopeSchema,
  record: fanoutCitedSchema,
  maxPageSize: MAX_PAGE_SIZE,
});

/** `fanouts_cited.target_kind` of a search asked by cited domain (searches by cited page have their own stream and table). */
const DOMAIN_TARGET = 'domain';

/**
 * The searches that led answers to a cited domain (spec endpoint 15), per brand, domain and run window: counts are of
 * the whole window and cannot be split into days, so rows are keyed by the window asked and a slice replaces its own.
 */
export const fanoutsCited = defineStream({
  name: 'fanouts_cited',
  endpoint: fanoutsCitedEndpoint,
  needs: ['domains'],
  slices: (input): Array<WindowSlice<{ domain: string }>> =>
    distinctDomains(input.dimensions.domains).flatMap((domain) => perWindow(input, { domain }, `${domain}/`)),
  targets: ({ brandId, slice }) => [
    {
      table: 'fanouts_cited',
      mode: 'replace',
      scope: { brand_id: brandId, target_kind: DOMAIN_TARGET, target: slice.params.domain, ...windowColumns(slice) },
    },
  ],
  read: ({ client, brandId, slice, signal }) =>
    client.read(fanoutsCitedEndpoint, brandId, { ...sliceRange(slice), domain: slice.params.domain, signal }),
  recordId: (record: FanoutCited) => record.id,
  rows: (record, { brandId, slice }) => ({
    fanouts_cited: [
      {
        brand_id: brandId,
        target_kind: DOMAIN_TARGET,
        target: slice.params.domain,
        ...windowColumns(slice),
        ...fanoutCitedColumns(record),
      },
    ],
  }),
});
