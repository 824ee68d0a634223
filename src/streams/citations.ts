import {
  CONTENT_TYPE_VALUES,
  OWNERSHIP_VALUES,
  SENTIMENT_VALUES,
  citationSeriesRowSchema,
  ownershipSummaryEntrySchema,
  type CitationSeriesRow,
  type CitationsOptions,
  type OwnershipSummaryEntry,
} from '../api/index.js';
import type { Row } from '../warehouse/slice-batch.js';
import { distinctDomains, domainOf } from './domains.js';
import { extraOf } from './extra.js';
import { perWindow } from './slicing.js';
import { defineStream, type RowsByTable, type SlicePlan, type SlicePlanInput, type TableTarget } from './stream.js';
import { sliceRange, windowColumns, windowDays } from './windows.js';

/** The domains filter of the citations report takes 1 to 20 root domains (spec, "Limits"; endpoint 17). */
export const CITATIONS_DOMAINS_MAX = 20;

/** `citation_daily.dimension`: which series a row belongs to. */
export type CitationDimension = 'all' | 'ownership' | 'sentiment' | 'content_type' | 'domain';

/** The `value` of the series of all citations (the column is part of the key, so not null). */
export const ALL_VALUE = '';

/** What one request of the window filters on; the slices' params, so plain JSON. */
type SeriesParams = { dimension: Exclude<CitationDimension, 'domain'>; value: string } | { dimension: 'domain'; domains: string[] };

/** The report's info with the validated ownership summary, as the stream's one page carries it. */
interface CitationsPageInfo {
  ownership: OwnershipSummaryEntry[];
}

/** Every request of a window: the unfiltered series, one per ownership, sentiment and content type value, then the domain batches. */
export function citationSeries(domains: readonly string[]): Array<{ label: string; params: SeriesParams }> {
  const byValue = (dimension: 'ownership' | 'sentiment' | 'content_type', values: readonly string[]) =>
    values.map((value) => ({ label: `${dimension}=${value}`, params: { dimension, value } as SeriesParams }));
  const distinct = distinctDomains(domains);
  const batches: Array<{ label: string; params: SeriesParams }> = [];
  for (let start = 0; start < distinct.length; start += CITATIONS_DOMAINS_MAX) {
    const batch = distinct.slice(start, start + CITATIONS_DOMAINS_MAX);
    batches.push({ label: `domains-${batches.length + 1}`, params: { dimension: 'domain', domains: batch } });
  }
  return [
    { label: 'all', params: { dimension: 'all', value: ALL_VALUE } },
    ...byValue('ownership', OWNERSHIP_VALUES),
    ...byValue('sentiment', SENTIMENT_VALUES),
    ...byValue('content_type', CONTENT_TYPE_VALUES),
    ...batches,
  ];
}

function seriesOf(slice: SlicePlan): SeriesParams {
  return slice.params as unknown as SeriesParams;
}

/** The report's filters for one series. */
function filtersOf(series: SeriesParams): Pick<CitationsOptions, 'ownership' | 'sentiment' | 'contentTypes' | 'domains'> {
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
 * Citations over time (spec endpoint 17) with period=day, so each row is one day's count: one request per brand,
 * window and series. A series split by ownership, sentiment or content type costs one request per value, because
 * the report has no "group by"; configured domains go 20 to a request.
 *
 * A domain request also answers the series of all domains together; that one is dropped there, because the `all`
 * request holds the same series and owns its rows (two slices replacing the same rows would race). The `all`
 * request also writes the window's summary by ownership.
 */
export const citations = defineStream<CitationSeriesRow>({
  name: 'citations',
  phase: 2,
  slices: (input: SlicePlanInput) =>
    perWindow(input).flatMap((window) =>
      citationSeries(input.dimensions.domains).map(({ label, params }) => ({ ...window, key: `${window.key}/${label}`, params })),
    ),
  targets: ({ brandId, slice }) => {
    const series = seriesOf(slice);
    const day = windowDays(slice);
    if (series.dimension === 'domain') {
      return [{ table: 'citation_daily', mode: 'replace', scope: { brand_id: brandId, dimension: 'domain', value: series.domains, day } }];
    }
    const targets: TableTarget[] = [
      { table: 'citation_daily', mode: 'replace', scope: { brand_id: brandId, dimension: series.dimension, value: series.value, day } },
    ];
    if (series.dimension === 'all') {
      targets.push({ table: 'citation_ownership_summary', mode: 'replace', scope: { brand_id: brandId, ...windowColumns(slice) } });
    }
    return targets;
  },
  read: async function* ({ client, brandId, slice, signal }) {
    const report = await client.citations(brandId, { ...sliceRange(slice), period: 'day', ...filtersOf(seriesOf(slice)), signal });
    const info: CitationsPageInfo = { ownership: report.ownership };
    yield { records: report.records, rejects: report.rejects, totalRows: report.totalRows, info };
  },
  // total_rows counts every row of the answer: the days of each series, domains included.
  recordId: (row) => `${row.domain ?? ''}/${row.date}`,
  rows: (row, { brandId, slice }): RowsByTable => {
    const series = seriesOf(slice);
    let value: string;
    if (series.dimension === 'domain') {
      if (row.domain == null) return {}; // the series of all domains together: the `all` slice's
      // The API answers root domains in its own spelling; rows are keyed by the domain as requested, or they would
      // fall outside the slice's replace scope. A domain that was never asked for keeps its own name, so the runner
      // finds it outside the slice's scope and quarantines it with what was asked.
      const normalised = domainOf(row.domain);
      value = series.domains.find((domain) => domain === normalised) ?? normalised ?? row.domain;
    } else {
      value = series.value;
    }
    const citationRow: Row = {
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
    if (seriesOf(slice).dimension !== 'all') return {};
    const { ownership } = page.info as CitationsPageInfo;
    return {
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
