import { z } from 'zod';
import { defineEndpoint } from '../api/endpoint.js';
import { MAX_PAGE_SIZE } from '../api/paginate.js';
import {
  TEMPLATE_TYPE_VALUES,
  id,
  openEnum,
  optional,
  pagedEnvelopeSchema,
  timestamp,
  type TemplateType,
} from '../api/schemas.js';
import { extraOf } from './extra.js';
import { once } from './slicing.js';
import { defineStream } from './stream.js';

export const templateSchema = z.looseObject({
  id,
  title: z.string(),
  type: openEnum(TEMPLATE_TYPE_VALUES),
  article_type: optional(z.string()),
  content: optional(z.string()),
  created_at: timestamp,
  updated_at: timestamp,
});

export type Template = z.infer<typeof templateSchema>;

export interface TemplatesOptions {
  type?: TemplateType;
  title?: string;
}

export const templatesEndpoint = defineEndpoint({
  name: 'templates',
  path: () => ['templates'],
  params: ['type', 'title'],
  query: (o: TemplatesOptions) => ({ type: o.type, title: o.title }),
  envelope: pagedEnvelopeSchema,
  record: templateSchema,
  maxPageSize: MAX_PAGE_SIZE,
});

/** Templates (spec endpoint 10), a full refresh per run: the brand's rows are replaced, so a deleted template goes. */
export const templates = defineStream({
  name: 'templates',
  endpoint: templatesEndpoint,
  slices: (input) => once(input),
  targets: ({ brandId }) => [{ table: 'templates', mode: 'replace', scope: { brand_id: brandId } }],
  read: ({ client, brandId, signal }) => client.read(templatesEndpoint, brandId, { signal }),
  recordId: (record: Template) => record.id,
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
