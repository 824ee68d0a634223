import { z } from 'zod';
import { defineEndpoint } from '../api/endpoint.js';
import { MAX_PAGE_SIZE } from '../api/paginate.js';
import { id, pagedEnvelopeSchema } from '../api/schemas.js';
import { extraOf } from './extra.js';
import { once } from './slicing.js';
import { defineStream, type SlicePlan } from './stream.js';

export const fanoutByPhraseSchema = z.looseObject({ id, query: z.string() });

export type FanoutByPhrase = z.infer<typeof fanoutByPhraseSchema>;

export interface FanoutsByPhraseOptions {
  phrase: string;
}

export const fanoutsByPhraseEndpoint = defineEndpoint({
  name: 'fanouts/by-phrase',
  path: () => ['fanouts', 'by-phrase'],
  params: ['phrase'],
  query: (o: FanoutsByPhraseOptions) => ({ phrase: o.phrase }),
  envelope: pagedEnvelopeSchema,
  record: fanoutByPhraseSchema,
  maxPageSize: MAX_PAGE_SIZE,
});

/**
 * The searches holding a phrase (spec endpoint 14), for each phrase of `sync.phrases` (the API has no list of
 * them). The answer has no date range, so each phrase is a full refresh of its rows.
 */
export const fanoutsByPhrase = defineStream({
  name: 'fanouts_by_phrase',
  endpoint: fanoutsByPhraseEndpoint,
  settings: {
    /** Phrases to sync search phrases (fanouts) of. */
    phrases: z.array(z.string().min(1).max(255)).default([]),
  },
  unconfigured: (sync) => (sync.phrases.length ? undefined : 'sync.phrases names no phrase (the API lists none)'),
  slices: (input): Array<SlicePlan<{ phrase: string }>> =>
    [...new Set(input.sync.phrases)].flatMap((phrase) => once(input, { phrase }, `phrase=${phrase}`)),
  targets: ({ brandId, slice }) => [
    { table: 'fanouts_by_phrase', mode: 'replace', scope: { brand_id: brandId, phrase: slice.params.phrase } },
  ],
  read: ({ client, brandId, slice, signal }) =>
    client.read(fanoutsByPhraseEndpoint, brandId, { phrase: slice.params.phrase, signal }),
  recordId: (record: FanoutByPhrase) => record.id,
  rows: (record, { brandId, slice }) => ({
    fanouts_by_phrase: [
      {
        brand_id: brandId,
        phrase: slice.params.phrase,
        id: record.id,
        query: record.query,
        _extra: extraOf(fanoutByPhraseSchema, record),
      },
    ],
  }),
});
