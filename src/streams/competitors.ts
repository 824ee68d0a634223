import { competitorSchema, type Competitor } from '../api/index.js';
import { extraOf } from './extra.js';
import { onePage } from './run-slice.js';
import { once } from './slicing.js';
import { defineStream } from './stream.js';

/**
 * Competitors (spec endpoint 7) with the platform's suggestions (`is_actual` false), a full refresh per run: the
 * brand's rows are replaced, so a suggestion the platform withdrew does not linger.
 */
export const competitors = defineStream<Competitor>({
  name: 'competitors',
  phase: 1,
  slices: (input) => once(input),
  targets: ({ brandId }) => [{ table: 'competitors', mode: 'replace', scope: { brand_id: brandId } }],
  read: ({ client, brandId, signal }) => onePage(client.competitors(brandId, { confirmed: false, signal })),
  recordId: (record) => record.id,
  rows: (record, { brandId }) => ({
    competitors: [
      {
        brand_id: brandId,
        id: record.id,
        name: record.name,
        website: record.website,
        is_actual: record.is_actual,
        _extra: extraOf(competitorSchema, record),
      },
    ],
  }),
});
