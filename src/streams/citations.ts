import { z } from 'zod';
import { defineEndpoint } from '../api/endpoint.js';
import {
  CONTENT_TYPE_VALUES,
  OWNERSHIP_VALUES,
  SENTIMENT_VALUES,
  count,
  day,
  infoCount,
  openEnum,
  optional,
  queryEcho,
  records,
  type Period,
} from '../api/schemas.js';
import { brandPath } from '../api/query.js';
import { validateRecords } from '../api/validate.js';
import { batches } from '../group-by.js';
import { CITATION_FILTER_PARAMS, citationFilterQuery, type CitationFilters } from './citation-filters.js';
import { distinctDomains, domainOf } from './domains.js';
import { extraOf } from './extra.js';
import { perWindow } from './slicing.js';
import {
  defineStream,
  replacing,
  type RowsByTable,
  type SlicePlanInput,
  type SourcePage,
  type WindowSlice,
} from './stream.js';
import { sliceRange, windowColumns, windowDays } from './windows.js';

export const citationSeriesRowSchema = z.looseObject({
  date: day,
  occurrences: count,
  // The first period has no previous one to compare with; null there is not a broken record.
  change: z.number().nullable(),
  domain: optional(z.string()),
});

export const ownershipSummaryEntrySchema = z.looseObject({
  label: z.string(),
  ownership: openEnum(OWNERSHIP_VALUES),
  occurrences: count,
  share: z.number(),
});

// A counter of the answer's info, as every other: a string of digits failed the envelope, and every request of the stream.
const citationsSummarySchema = z.looseObject({ occurrences: optional(infoCount), by_ownership: optional(records) });

export const citationsEnvelopeSchema = z.looseObject({
  data: records,
  info: z.looseObject({
    query: queryEcho,
    total_rows: optional(infoCount),
    summary: optional(citationsSummarySchema),
  }),
});

export type CitationSeriesRow = z.infer<typeof citationSeriesRowSchema>;
export type OwnershipSummaryEntry = z.infer<typeof ownershipSummaryEntrySchema>;

export type CitationsInfo = z.infer<typeof citationsEnvelopeSchema>['info'];

export interface CitationsOptions extends CitationFilters {
  period?: Period;
  /** 1 to 20 root domains (spec, "Limits"), each with its own series. */
  domains?: readonly string[];
}

/** Citations over time (spec endpoint 17): one report, not paged. */
export const citationsEndpoint = defineEndpoint({
  name: 'reports/citations',
  path: () => ['reports', 'citations'],
  params: [...CITATION_FILTER_PARAMS, 'period', 'domains'],
  query: (o: CitationsOptions) => ({ ...citationFilterQuery(o), period: o.period, domains: o.domains }),
  envelope: citationsEnvelopeSchema,
  record: citationSeriesRowSchema,
});

/** `info.summary.by_ownership` of a report's page, validated entry by entry (invalid entries are rejects). */
export function ownershipSummary(page: Pick<SourcePage<unknown>, 'info'>, brandId: number) {
  const info = page.info as CitationsInfo | undefined;
  const source = `GET ${brandPath(brandId, ...citationsEndpoint.path({}))} info.summary.by_ownership`;
  return validateRecords(ownershipSummaryEntrySchema, info?.summary?.by_ownership ?? [], source);
}

/** The domains filter of the citations report takes 1 to 20 root domains (spec, "Limits"; endpoint 17). */
export const CITATIONS_DOMAINS_MAX = 20;

/** `citation_daily.dimension`: which series a row belongs to. */
export type CitationDimension = 'all' | 'ownership' | 'sentiment' | 'content_type' | 'domain';

/** The `value` of the series of all citations (the column is part of the key, so not null). */
const ALL_VALUE = '';

/** What one request of the window filters on; the slices' params, so plain JSON. */
type SeriesParams =
  | { dimension: Exclude<CitationDimension, 'domain'>; value: string }
  | { dimension: 'domain'; domains: string[] };

/** The report's info with the validated ownership summary, as the stream's one page carries it. */
interface CitationsPageInfo extends Record<string, unknown> {
  ownership: OwnershipSummaryEntry[];
}

/** Every request of a window: the unfiltered series, one per ownership, sentiment and content type value, then the domain batches. */
function citationSeries(domains: readonly string[]): Array<{ label: string; params: SeriesParams }> {
  const byValue = (dimension: 'ownership' | 'sentiment' | 'content_type', values: readonly string[]) =>
    values.map((value) => ({ label: `${dimension}=${value}`, params: { dimension, value } as SeriesParams }));
  return [
    { label: 'all', params: { dimension: 'all', value: ALL_VALUE } },
    ...byValue('ownership', OWNERSHIP_VALUES),
    ...byValue('sentiment', SENTIMENT_VALUES),
    ...byValue('content_type', CONTENT_TYPE_VALUES),
    ...batches(distinctDomains(domains), CITATIONS_DOMAINS_MAX).map((batch, index) => ({
      label: `domains-${index + 1}`,
      params: { dimension: 'domain', domains: batch } as SeriesParams,
    })),
  ];
}

type SeriesSlice = WindowSlice<SeriesParams>;

function filtersOf(
  series: SeriesParams,
): Pick<CitationsOptions, 'ownership' | 'sentiment' | 'contentTypes' | 'domains'> {
  switch (series.dimension) {
    case 'all':
      return {};
    case 'ownership':
      return { ownership: [series.value] };
    case 'sentiment':
      return { sentiment: [series.value] };
    case 'content_type':
      return { contentTypes: [series.value] };
    case 'domain':
      return { domains: series.domains };
  }
}

/**
 * Citations over time (spec endpoint 17), period=day, a request per brand, window and series (a split series: per
 * value; domains 20 a request). The `all` request owns the all-domains series, the ownership summary, the total.
 */
export const citations = defineStream({
  name: 'citations',
  endpoint: citationsEndpoint,
  needs: ['domains'],
  slices: (input: SlicePlanInput): SeriesSlice[] =>
    perWindow(input).flatMap((window) =>
      citationSeries(input.dimensions.domains).map(({ label, params }) => ({
        ...window,
        key: `${window.key}/${label}`,
        params,
      })),
    ),
  targets: ({ brandId, slice }) => {
    const series = slice.params;
    const value = series.dimension === 'domain' ? series.domains : series.value;
    const daily = replacing(['citation_daily'], {
      brand_id: brandId,
      dimension: series.dimension,
      value,
      day: windowDays(slice),
    });
    if (series.dimension !== 'all') return daily;
    const scope = { brand_id: brandId, ...windowColumns(slice) };
    return [...daily, ...replacing(['citation_ownership_summary', 'citation_window_totals'], scope)];
  },
  read: async function* ({ client, brandId, slice, signal }) {
    for await (const page of client.read(citationsEndpoint, brandId, {
      ...sliceRange(slice),
      period: 'day',
      ...filtersOf(slice.params),
      signal,
    })) {
      const summary = ownershipSummary(page, brandId);
      // The answer's info is kept whole: its query echo records which engines the series cover (_slice_queries).
      const info: CitationsPageInfo = { ...page.info, ownership: summary.records };
      yield { ...page, rejects: [...page.rejects, ...summary.rejects], info };
    }
  },
  // total_rows counts every row of the answer, the days of each series, domains included (the simulator's reading)...
  recordId: (row: CitationSeriesRow) => `${row.domain ?? ''}/${row.date}`,
  // ...or, as "One row per period" may be read, the periods: the spec does not say which when domains add series, and
  // the one reading alone made every domain batch of an API of the other incomplete, read three times, on every run.
  otherTotalRows: (ids) => new Set(ids.map((id) => String(id).slice(String(id).lastIndexOf('/') + 1))).size,
  rows: (row, { brandId, slice }): RowsByTable => {
    const series = slice.params;
    let value: string;
    if (series.dimension === 'domain') {
      if (row.domain == null) return {}; // the series of all domains together: the `all` slice's
      // Rows are keyed by the domain as requested, so they fall in the slice's replace scope; a domain never asked for
      // keeps its own name, and the runner quarantines it as out of scope.
      const normalised = domainOf(row.domain);
      value = series.domains.find((domain) => domain === normalised) ?? normalised ?? row.domain;
    } else {
      value = series.value;
    }
    const citationRow = {
      brand_id: brandId,
      day: row.date,
      dimension: series.dimension,
      value,
      occurrences: row.occurrences,
      change: row.change ?? null,
      _extra: extraOf(citationSeriesRowSchema, row),
    };
    return { citation_daily: [citationRow] };
  },
  infoRows: (page, { brandId, slice }): RowsByTable => {
    if (slice.params.dimension !== 'all') return {};
    const { ownership, summary, total_rows } = page.info as CitationsPageInfo &
      Pick<CitationsInfo, 'summary' | 'total_rows'>;
    return {
      citation_window_totals: [
        {
          brand_id: brandId,
          ...windowColumns(slice),
          occurrences: summary?.occurrences ?? null,
          total_rows: total_rows ?? page.totalRows ?? null,
          _extra: summary ? extraOf(citationsSummarySchema, summary) : null,
        },
      ],
      citation_ownership_summary: ownership.map((entry) => ({
        brand_id: brandId,
        ...windowColumns(slice),
        ownership: entry.ownership,
        label: entry.label,
        occurrences: entry.occurrences,
        share: entry.share,
        _extra: extraOf(ownershipSummaryEntrySchema, entry),
      })),
    };
  },
});
