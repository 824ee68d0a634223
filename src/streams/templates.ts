import { templateSchema, type Template } from '../api/index.js';
import { extraOf } from './extra.js';
import { once } from './slicing.js';
import { defineStream } from './stream.js';

/** Templates (spec endpoint 10), a full refresh per run: the brand's rows are replaced, so a deleted template goes. */
export const templates = defineStream<Template>({
  name: 'templates',
  phase: 1,
  slices: (input) => once(input),
  targets: ({ brandId }) => [{ table: 'templates', mode: 'replace', scope: { brand_id: brandId } }],
  read: ({ client, brandId, signal }) => client.templates(brandId, { signal }),
  recordId: (record) => record.id,
  rows: (record, { brandId }) => ({
    templates: [
      {
        brand_id: brandId,
        id: record.id,
        title: record.title,
        type: record.type,
        article_type: record.article_type ?? null,
        content: record.content ?? null,
        created_at: record.created_at,
        updated_at: record.updated_at,
        _extra: extraOf(templateSchema, record),
      },
    ],
  }),
});
