import { trackedUrlSchema, trackedUrlsEnvelopeSchema, type TrackedUrl, type TrackedUrlsInfo } from '../api/index.js';
import { extraOf, withNestedExtra } from './extra.js';
import { perDay } from './slicing.js';
import { defineStream } from './stream.js';
import { sliceRange } from './windows.js';

// optional() in the schemas is nullish(): two wrappers around the group's object schema.
const groupSchema = trackedUrlSchema.shape.group.unwrap().unwrap();

/**
 * Tracked URLs with their citation counts (spec endpoint 3), one report per brand and day: the page itself is a
 * dimension (merged), its counts of that day are a fact (replaced with the day), and the report's `info` gives the
 * day's totals over every page.
 */
export const trackedUrls = defineStream<TrackedUrl>({
  name: 'tracked_urls',
  phase: 1,
  slices: (input) => perDay(input),
  targets: ({ brandId, slice }) => [
    { table: 'tracked_urls', mode: 'merge' },
    { table: 'tracked_url_daily', mode: 'replace', scope: { brand_id: brandId, day: slice.day! } },
    { table: 'tracked_url_daily_totals', mode: 'replace', scope: { brand_id: brandId, day: slice.day! } },
  ],
  read: ({ client, brandId, slice, signal }) => client.trackedUrls(brandId, { ...sliceRange(slice), signal }),
  recordId: (record) => record.id,
  rows: (record, { brandId, slice }) => ({
    tracked_urls: [
      {
        brand_id: brandId,
        id: record.id,
        url: record.url,
        title: record.title,
        created_at: record.created_at,
        group_id: record.group?.id ?? null,
        group_name: record.group?.name ?? null,
        _extra: withNestedExtra(extraOf(trackedUrlSchema, record), 'group', record.group ? extraOf(groupSchema, record.group) : null),
      },
    ],
    tracked_url_daily: [
      {
        brand_id: brandId,
        tracked_url_id: record.id,
        day: slice.day!,
        citations: record.citations,
        conversations: record.conversations,
        citation_rate: record.citation_rate,
        first_cited: record.first_cited ?? null,
        _extra: null,
      },
    ],
  }),
  infoRows: (page, { brandId, slice }) => {
    const info = page.info as TrackedUrlsInfo;
    return {
      tracked_url_daily_totals: [
        {
          brand_id: brandId,
          day: slice.day!,
          citations: info.citations ?? null,
          cited_urls: info.cited_urls ?? null,
          total_rows: page.totalRows ?? null,
          _extra: extraOf(trackedUrlsEnvelopeSchema.shape.info, info),
        },
      ],
    };
  },
});
