import { z } from 'zod';
import { defineEndpoint } from '../api/endpoint.js';
import { MAX_PAGE_SIZE } from '../api/paginate.js';
import { id, optional, pagedEnvelopeSchema, timestamp } from '../api/schemas.js';
import { extraOf } from './extra.js';
import { once } from './slicing.js';
import { defineStream } from './stream.js';

export const contentAnalysisSchema = z.looseObject({
  id,
  kind: z.string(),
  status: z.string(),
  // The spec gives step no type and none of its values ("not shown"): a step sent as a number is kept as its text.
  step: z.union([z.string(), z.number().transform(String)]),
  created_at: timestamp,
  updated_at: timestamp,
  article_id: optional(id),
  title: optional(z.string()),
  topic_id: optional(id),
  topic_name: optional(z.string()),
  url: optional(z.string()),
});

export type ContentAnalysis = z.infer<typeof contentAnalysisSchema>;

export const contentAnalysesEndpoint = defineEndpoint({
  name: 'content-analyses',
  path: () => ['content-analyses'],
  params: [],
  query: (_: object) => ({}),
  envelope: pagedEnvelopeSchema,
  record: contentAnalysisSchema,
  maxPageSize: MAX_PAGE_SIZE,
});

/** Content analyses (spec endpoint 12), a full refresh per run: the brand's rows are replaced. */
export const contentAnalyses = defineStream({
  name: 'content_analyses',
  endpoint: contentAnalysesEndpoint,
  slices: (input) => once(input),
  targets: ({ brandId }) => [{ table: 'content_analyses', mode: 'replace', scope: { brand_id: brandId } }],
  read: ({ client, brandId, signal }) => client.read(contentAnalysesEndpoint, brandId, { signal }),
  recordId: (record: ContentAnalysis) => record.id,
  rows: (record, { brandId }) => ({
    content_analyses: [
      {
        brand_id: brandId,
        id: record.id,
        kind: record.kind,
        status: record.status,
        step: record.step,
        created_at: record.created_at,
        updated_at: record.updated_at,
        article_id: record.article_id ?? null,
        title: record.title ?? null,
        topic_id: record.topic_id ?? null,
        topic_name: record.topic_name ?? null,
        url: record.url ?? null,
        _extra: extraOf(contentAnalysisSchema, record),
      },
    ],
  }),
});
