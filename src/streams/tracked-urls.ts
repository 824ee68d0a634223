import { z } from 'zod';
import { RANGE_PARAMS, defineEndpoint, rangeQuery, type EngineFilter, type RangeFilter } from '../api/endpoint.js';
import { MAX_PAGE_SIZE } from '../api/paginate.js';
import { count, id, infoCount, optional, pagingInfo, ratio, records, timestamp } from '../api/schemas.js';
import { extraOf } from './extra.js';
import { perDay } from './slicing.js';
import { defineStream, replacing } from './stream.js';
import { sliceRange } from './windows.js';

export const trackedUrlSchema = z.looseObject({
  id,
  url: z.string(),
  title: z.string(),
  created_at: timestamp,
  citations: count,
  conversations: count,
  citation_rate: ratio,
  first_cited: optional(timestamp),
  group: optional(z.looseObject({ id, name: z.string() })),
});

export const trackedUrlsEnvelopeSchema = z.looseObject({
  data: records,
  info: z.looseObject({ ...pagingInfo, citations: optional(infoCount), cited_urls: optional(infoCount) }),
});

export type TrackedUrl = z.infer<typeof trackedUrlSchema>;

export interface TrackedUrlsOptions extends RangeFilter, EngineFilter {
  topicIds?: readonly number[];
  groupId?: number;
  ungrouped?: boolean;
  search?: string;
  sort?: 'created_at' | 'citations';
  order?: 'asc' | 'desc';
}

export const trackedUrlsEndpoint = defineEndpoint({
  name: 'tracked-urls',
  path: () => ['tracked-urls'],
  params: [...RANGE_PARAMS, 'topic_ids', 'group_id', 'ungrouped', 'search', 'sort', 'order'],
  query: (o: TrackedUrlsOptions) => ({
    ...rangeQuery(o),
    topic_ids: o.topicIds,
    group_id: o.groupId,
    ungrouped: o.ungrouped,
    search: o.search,
    sort: o.sort,
    order: o.order,
  }),
  envelope: trackedUrlsEnvelopeSchema,
  record: trackedUrlSchema,
  maxPageSize: MAX_PAGE_SIZE,
});

// optional() in the schemas is nullish(): two wrappers around the group's object schema.
const groupSchema = trackedUrlSchema.shape.group.unwrap().unwrap();

/**
 * Tracked URLs and their citation counts (spec endpoint 3), a report per brand and day: the page is merged, its day's
 * counts replace the day's, and the report's `info` gives the day's totals over every page.
 */
export const trackedUrls = defineStream({
  name: 'tracked_urls',
  endpoint: trackedUrlsEndpoint,
  // The pages' domains are what citations and domain details are asked for; a page the API no longer lists (no longer
  // tracked) is asked for nothing.
  provides: {
    domains: (source, brandId) => source.listedPages(brandId),
    pages: (source, brandId) => source.listedPages(brandId),
  },
  slices: (input) => perDay(input),
  targets: ({ brandId, slice }) => [
    { table: 'tracked_urls', mode: 'merge' },
    ...replacing(['tracked_url_daily', 'tracked_url_daily_totals'], { brand_id: brandId, day: slice.day }),
  ],
  read: ({ client, brandId, slice, signal }) =>
    client.read(trackedUrlsEndpoint, brandId, { ...sliceRange(slice), signal }),
  recordId: (record: TrackedUrl) => record.id,
  rows: (record, { brandId, slice }) => {
    // The group is flattened into columns: its unknown fields are kept under its name, so they are not lost with it.
    const groupExtra = record.group ? extraOf(groupSchema, record.group) : null;
    const ownExtra = extraOf(trackedUrlSchema, record);
    const extra = groupExtra ? { ...ownExtra, group: groupExtra } : ownExtra;
    return {
      tracked_urls: [
        {
          brand_id: brandId,
          id: record.id,
          url: record.url,
          title: record.title,
          created_at: record.created_at,
          group_id: record.group?.id ?? null,
          group_name: record.group?.name ?? null,
          _extra: extra,
        },
      ],
      tracked_url_daily: [
        {
          brand_id: brandId,
          tracked_url_id: record.id,
          day: slice.day,
          citations: record.citations,
          conversations: record.conversations,
          citation_rate: record.citation_rate,
          first_cited: record.first_cited ?? null,
          // Also here: the page's row is merged by id, each day's slice over the last, so a field the spec does not
          // name (a figure of the range, say) kept there alone survived for one day of them.
          _extra: extra,
        },
      ],
    };
  },
  infoRows: (page, { brandId, slice }) => {
    const info = page.info as z.infer<typeof trackedUrlsEnvelopeSchema>['info'];
    return {
      tracked_url_daily_totals: [
        {
          brand_id: brandId,
          day: slice.day,
          citations: info.citations ?? null,
          cited_urls: info.cited_urls ?? null,
          total_rows: page.totalRows ?? null,
          _extra: extraOf(trackedUrlsEnvelopeSchema.shape.info, info),
        },
      ],
    };
  },
});
