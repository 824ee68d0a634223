import { z } from 'zod';
import { todayUtc } from '../days.js';
import { defineEndpoint } from '../api/endpoint.js';
import { MAX_PAGE_SIZE } from '../api/paginate.js';
import { id, infoCount, optional, pagingInfo, records, timestamp } from '../api/schemas.js';
import { extraOf } from './extra.js';
import { once } from './slicing.js';
import { defineStream, type SlicePlan, type TableTarget } from './stream.js';

export const articleSchema = z.looseObject({
  id,
  title: optional(z.string()),
  slug: optional(z.string()),
  language: optional(z.string()),
  type: optional(z.string()),
  version: optional(z.int()),
  status: z.string(),
  generation_status: z.string(),
  topic_ids: optional(z.array(id)),
  scenario_ids: optional(z.array(id)),
  created_at: timestamp,
  updated_at: timestamp,
});

export const articlesEnvelopeSchema = z.looseObject({
  data: records,
  info: z.looseObject({
    ...pagingInfo,
    draft: optional(infoCount),
    in_progress: optional(infoCount),
    published: optional(infoCount),
  }),
});

export type Article = z.infer<typeof articleSchema>;

export const articlesEndpoint = defineEndpoint({
  name: 'articles',
  path: () => ['articles'],
  params: [],
  query: (_: object) => ({}),
  envelope: articlesEnvelopeSchema,
  record: articleSchema,
  maxPageSize: MAX_PAGE_SIZE,
});

/**
 * The day the list's status counters are filed under: the UTC day they were read, fixed when the slice is planned so
 * its scope and rows agree. A slice planned without `readDay` (jobs outlive code) keeps the window's last day.
 */
function statusDay(slice: SlicePlan): string {
  return typeof slice.params.readDay === 'string' ? slice.params.readDay : (slice.to ?? todayUtc());
}

/**
 * Articles (spec endpoint 11), a full refresh per run (rows of the brand replaced), plus the list's counters per
 * status (draft, in_progress, published) kept per day, so their trend can be read.
 */
export const articles = defineStream({
  name: 'articles',
  endpoint: articlesEndpoint,
  slices: (input) => once(input, { readDay: input.readDay ?? todayUtc() }),
  targets: ({ brandId, slice }): TableTarget[] => [
    { table: 'articles', mode: 'replace', scope: { brand_id: brandId } },
    { table: 'article_status_daily', mode: 'replace', scope: { brand_id: brandId, day: statusDay(slice) } },
  ],
  read: ({ client, brandId, signal }) => client.read(articlesEndpoint, brandId, { signal }),
  recordId: (record: Article) => record.id,
  rows: (record, { brandId }) => ({
    articles: [
      {
        brand_id: brandId,
        id: record.id,
        title: record.title ?? null,
        slug: record.slug ?? null,
        language: record.language ?? null,
        type: record.type ?? null,
        version: record.version ?? null,
        status: record.status,
        generation_status: record.generation_status,
        topic_ids: record.topic_ids ?? null,
        scenario_ids: record.scenario_ids ?? null,
        created_at: record.created_at,
        updated_at: record.updated_at,
        _extra: extraOf(articleSchema, record),
      },
    ],
  }),
  infoRows: (page, { brandId, slice }) => {
    const info = page.info as z.infer<typeof articlesEnvelopeSchema>['info'];
    return {
      article_status_daily: [
        {
          brand_id: brandId,
          day: statusDay(slice),
          draft: info.draft ?? null,
          in_progress: info.in_progress ?? null,
          published: info.published ?? null,
          total_rows: page.totalRows ?? null,
          _extra: extraOf(articlesEnvelopeSchema.shape.info, info),
        },
      ],
    };
  },
});
