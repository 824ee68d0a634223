import { z } from 'zod';
import { defineEndpoint } from '../api/endpoint.js';
import { id, pagedEnvelopeSchema } from '../api/schemas.js';
import { texts } from './dimensions.js';
import { extraOf } from './extra.js';
import { once } from './slicing.js';
import { defineStream } from './stream.js';

export const competitorSchema = z.looseObject({
  id,
  name: z.string(),
  website: z.string(),
  is_actual: z.boolean(),
});

export type Competitor = z.infer<typeof competitorSchema>;

export interface CompetitorsOptions {
  /** true: only competitors the account confirmed; false: platform suggestions too. */
  confirmed?: boolean;
}

/** Competitors (spec endpoint 7): the whole list in one answer. */
export const competitorsEndpoint = defineEndpoint({
  name: 'competitors',
  path: () => ['competitors'],
  params: ['confirmed'],
  query: (o: CompetitorsOptions) => ({ confirmed: o.confirmed }),
  envelope: pagedEnvelopeSchema,
  record: competitorSchema,
});

/**
 * Competitors (spec endpoint 7) with the platform's suggestions (`is_actual` false), a full refresh per run: the
 * brand's rows are replaced, so a suggestion the platform withdrew does not linger.
 */
export const competitors = defineStream({
  name: 'competitors',
  endpoint: competitorsEndpoint,
  // Their websites' domains are what citations and domain details are asked for.
  provides: { domains: async (source, brandId) => texts(await source.brandColumn('competitors', 'website', brandId)) },
  slices: (input) => once(input),
  targets: ({ brandId }) => [{ table: 'competitors', mode: 'replace', scope: { brand_id: brandId } }],
  read: ({ client, brandId, signal }) => client.read(competitorsEndpoint, brandId, { confirmed: false, signal }),
  recordId: (record: Competitor) => record.id,
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
