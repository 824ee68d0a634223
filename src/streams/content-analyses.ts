import { contentAnalysisSchema, type ContentAnalysis } from '../api/index.js';
import { extraOf } from './extra.js';
import { once } from './slicing.js';
import { defineStream } from './stream.js';

/** Content analyses (spec endpoint 12), a full refresh per run: the brand's rows are replaced. */
export const contentAnalyses = defineStream<ContentAnalysis>({
  name: 'content_analyses',
  phase: 1,
  slices: (input) => once(input),
  targets: ({ brandId }) => [{ table: 'content_analyses', mode: 'replace', scope: { brand_id: brandId } }],
  read: ({ client, brandId, signal }) => client.contentAnalyses(brandId, { signal }),
  recordId: (record) => record.id,
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
