import { fanoutCitedSchema, type FanoutCited } from '../api/index.js';
import { distinctDomains } from './domains.js';
import { extraOf } from './extra.js';
import { perWindow } from './slicing.js';
import { defineStream } from './stream.js';
import { stringParam } from './slice-params.js';
import { sliceRange, windowColumns } from './windows.js';

/** `fanouts_cited.target_kind` of a search asked by cited domain (the other kind, `url`, is not synced yet). */
const DOMAIN_TARGET = 'domain';

/**
 * The searches that led answers to a cited domain (spec endpoint 15), per brand, domain and run window. Relevance
 * and counts are of the whole window and cannot be split into days, so rows are keyed by the window they were
 * asked for and a slice replaces only its own window.
 */
export const fanoutsCited = defineStream<FanoutCited>({
  name: 'fanouts_cited',
  phase: 2,
  slices: (input) => distinctDomains(input.dimensions.domains).flatMap((domain) => perWindow(input, { domain }, `${domain}/`)),
  targets: ({ brandId, slice }) => [
    {
      table: 'fanouts_cited',
      mode: 'replace',
      scope: { brand_id: brandId, target_kind: DOMAIN_TARGET, target: stringParam(slice, 'domain'), ...windowColumns(slice) },
    },
  ],
  read: ({ client, brandId, slice, signal }) =>
    client.fanoutsCited(brandId, { ...sliceRange(slice), domain: stringParam(slice, 'domain'), signal }),
  recordId: (record) => record.id,
  rows: (record, { brandId, slice }) => ({
    fanouts_cited: [
      {
        brand_id: brandId,
        target_kind: DOMAIN_TARGET,
        target: stringParam(slice, 'domain'),
        ...windowColumns(slice),
        id: record.id,
        query: record.query,
        conversations: record.conversations,
        relevance: record.relevance,
        _extra: extraOf(fanoutCitedSchema, record),
      },
    ],
  }),
});
