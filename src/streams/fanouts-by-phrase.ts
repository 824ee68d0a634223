import { fanoutByPhraseSchema, type FanoutByPhrase } from '../api/index.js';
import { extraOf } from './extra.js';
import { once } from './slicing.js';
import { defineStream } from './stream.js';
import { stringParam } from './slice-params.js';

/**
 * The searches holding a phrase (spec endpoint 14), for each phrase of `sync.phrases` (the API has no list of
 * them). The answer has no date range, so each phrase is a full refresh of its rows.
 */
export const fanoutsByPhrase = defineStream<FanoutByPhrase>({
  name: 'fanouts_by_phrase',
  phase: 1,
  slices: (input) => [...new Set(input.sync.phrases)].flatMap((phrase) => once(input, { phrase }, `phrase=${phrase}`)),
  targets: ({ brandId, slice }) => [
    { table: 'fanouts_by_phrase', mode: 'replace', scope: { brand_id: brandId, phrase: stringParam(slice, 'phrase') } },
  ],
  read: ({ client, brandId, slice, signal }) => client.fanoutsByPhrase(brandId, { phrase: stringParam(slice, 'phrase'), signal }),
  recordId: (record) => record.id,
  rows: (record, { brandId, slice }) => ({
    fanouts_by_phrase: [
      { brand_id: brandId, phrase: stringParam(slice, 'phrase'), id: record.id, query: record.query, _extra: extraOf(fanoutByPhraseSchema, record) },
    ],
  }),
});
