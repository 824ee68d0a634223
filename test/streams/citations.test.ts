import { describe, expect, it } from 'vitest';
import { CONTENT_TYPE_VALUES, OWNERSHIP_VALUES, SENTIMENT_VALUES } from '../../src/api/index.js';
import { CITATIONS_DOMAINS_MAX, citations } from '../../src/streams/citations.js';
import type { SlicePlan } from '../../src/streams/stream.js';
import { BRAND, outsideScope, planInput, readSlice, scopes } from './harness.js';

const DAYS = ['2026-11-18', '2026-11-19', '2026-11-20'];
const WINDOW = '2026-11-18..2026-11-20';
const domains = (n: number) => Array.from({ length: n }, (_, i) => `site-${String(i).padStart(2, '0')}.test`);

function sliceNamed(key: string, domainList: string[] = []): SlicePlan {
  const slice = citations.slices(planInput(DAYS, { dimensions: { domains: domainList } })).find((s) => s.key === key);
  if (!slice) throw new Error(`no slice ${key}`);
  return slice;
}

function citationsClient(
  rows: unknown[],
  ownership: unknown[] = [],
  calls: unknown[][] = [],
  summary?: Record<string, unknown>,
) {
  return {
    citations: async (...args: unknown[]) => {
      calls.push(args);
      return {
        records: rows,
        rejects: [],
        info: { total_rows: rows.length, ...(summary ? { summary } : {}) },
        totalRows: rows.length,
        ownership,
      };
    },
  };
}

describe('citations slices', () => {
  it('plans 1 + 9 + 3 + 18 series and ceil(domains / 20) domain batches per window, with unique readable keys', () => {
    for (const count of [0, 1, 20, 21, 45]) {
      const slices = citations.slices(planInput(DAYS, { dimensions: { domains: domains(count) } }));
      const expected =
        1 +
        OWNERSHIP_VALUES.length +
        SENTIMENT_VALUES.length +
        CONTENT_TYPE_VALUES.length +
        Math.ceil(count / CITATIONS_DOMAINS_MAX);
      expect(1 + 9 + 3 + 18).toBe(31);
      expect(slices).toHaveLength(expected);
      expect(new Set(slices.map((s) => s.key)).size).toBe(expected);
      expect(slices.every((s) => s.from === DAYS[0] && s.to === DAYS[2] && s.day === null)).toBe(true);
    }
    const keys = citations.slices(planInput(DAYS, { dimensions: { domains: domains(21) } })).map((s) => s.key);
    expect(keys).toContain(`${WINDOW}/all`);
    expect(keys).toContain(`${WINDOW}/ownership=first_party`);
    expect(keys).toContain(`${WINDOW}/sentiment=negative`);
    expect(keys).toContain(`${WINDOW}/content_type=wikipedia_encyclopedia`);
    expect(keys).toContain(`${WINDOW}/domains-2`);
  });

  it('batches at most 20 distinct normalised domains, every domain once', () => {
    const list = [...domains(45), 'WWW.site-00.test'];
    const batches = citations
      .slices(planInput(DAYS, { dimensions: { domains: list } }))
      .filter((s) => s.params.dimension === 'domain')
      .map((s) => (s.params as { domains: string[] }).domains);
    expect(batches.map((b) => b.length)).toEqual([20, 20, 5]);
    expect(batches.flat().sort()).toEqual(domains(45));
  });

  it('plans nothing without days', () => {
    expect(citations.slices(planInput([]))).toEqual([]);
  });
});

describe('citations rows', () => {
  it('the all slice asks with period=day only, writes the all series and the window summary', async () => {
    const calls: unknown[][] = [];
    const slice = sliceNamed(`${WINDOW}/all`);
    const rows = DAYS.map((date, i) => ({
      date,
      occurrences: 10 + i,
      change: i === 0 ? null : 0.1,
      ...(i === 2 ? { note: 'x' } : {}),
    }));
    const summary = [
      { label: 'First party', ownership: 'first_party', occurrences: 12, share: 0.36 },
      { label: 'Other', ownership: 'other', occurrences: 21, share: 0.64 },
    ];
    const { tables, result } = await readSlice(
      citations,
      slice,
      citationsClient(rows, summary, calls, { occurrences: 33, period_note: 'n' }),
    );
    expect(result).toMatchObject({ status: 'complete', records: 3, totalRows: 3 });
    expect(calls[0]![1]).toMatchObject({ startDate: DAYS[0], endDate: DAYS[2], period: 'day' });
    expect(calls[0]![1]).not.toHaveProperty('ownership');
    expect(tables.citation_daily).toEqual([
      { brand_id: BRAND, day: DAYS[0], dimension: 'all', value: '', occurrences: 10, change: null, _extra: null },
      { brand_id: BRAND, day: DAYS[1], dimension: 'all', value: '', occurrences: 11, change: 0.1, _extra: null },
      {
        brand_id: BRAND,
        day: DAYS[2],
        dimension: 'all',
        value: '',
        occurrences: 12,
        change: 0.1,
        _extra: { note: 'x' },
      },
    ]);
    expect(tables.citation_ownership_summary).toEqual([
      {
        brand_id: BRAND,
        window_start: DAYS[0],
        window_end: DAYS[2],
        ownership: 'first_party',
        label: 'First party',
        occurrences: 12,
        share: 0.36,
        _extra: null,
      },
      {
        brand_id: BRAND,
        window_start: DAYS[0],
        window_end: DAYS[2],
        ownership: 'other',
        label: 'Other',
        occurrences: 21,
        share: 0.64,
        _extra: null,
      },
    ]);
    // The API's own total of the window, with what else its summary says.
    expect(tables.citation_window_totals).toEqual([
      {
        brand_id: BRAND,
        window_start: DAYS[0],
        window_end: DAYS[2],
        occurrences: 33,
        total_rows: 3,
        _extra: { period_note: 'n' },
      },
    ]);
    expect(scopes(citations, slice)).toEqual({
      citation_daily: { brand_id: BRAND, dimension: 'all', value: '', day: DAYS },
      citation_ownership_summary: { brand_id: BRAND, window_start: DAYS[0], window_end: DAYS[2] },
      citation_window_totals: { brand_id: BRAND, window_start: DAYS[0], window_end: DAYS[2] },
    });
    expect(outsideScope(citations, slice, tables)).toEqual([]);
  });

  it('a value slice filters on its value and writes only its series (no summary)', async () => {
    const calls: unknown[][] = [];
    const slice = sliceNamed(`${WINDOW}/content_type=video`);
    const rows = DAYS.map((date) => ({ date, occurrences: 1, change: 0 }));
    const { tables } = await readSlice(
      citations,
      slice,
      citationsClient(rows, [{ label: 'Other', ownership: 'other', occurrences: 3, share: 1 }], calls),
    );
    expect(calls[0]![1]).toMatchObject({ contentTypes: ['video'], period: 'day' });
    expect(tables.citation_daily!.map((r) => [r.dimension, r.value])).toEqual(
      DAYS.map(() => ['content_type', 'video']),
    );
    expect(tables.citation_ownership_summary).toBeUndefined();
    expect(tables.citation_window_totals).toBeUndefined();
    expect(scopes(citations, slice)).toEqual({
      citation_daily: { brand_id: BRAND, dimension: 'content_type', value: 'video', day: DAYS },
    });
    expect(outsideScope(citations, slice, tables)).toEqual([]);

    const ownershipCalls: unknown[][] = [];
    await readSlice(
      citations,
      sliceNamed(`${WINDOW}/ownership=competitor_owned`),
      citationsClient([], [], ownershipCalls),
    );
    expect(ownershipCalls[0]![1]).toMatchObject({ ownership: ['competitor_owned'] });
    const sentimentCalls: unknown[][] = [];
    await readSlice(citations, sliceNamed(`${WINDOW}/sentiment=positive`), citationsClient([], [], sentimentCalls));
    expect(sentimentCalls[0]![1]).toMatchObject({ sentiment: ['positive'] });
  });

  it('a domain batch keeps the per-domain series as asked and drops the series of all domains (the all slice owns it)', async () => {
    const calls: unknown[][] = [];
    const slice = sliceNamed(`${WINDOW}/domains-1`, ['news.test', 'www.Shop.test']);
    const rows = [
      ...DAYS.map((date) => ({ date, occurrences: 50, change: 0 })),
      ...DAYS.map((date) => ({ date, occurrences: 2, change: 0, domain: 'news.test' })),
      ...DAYS.map((date) => ({ date, occurrences: 3, change: 0, domain: 'SHOP.test' })),
      { date: DAYS[0], occurrences: 1, change: 0, domain: 'never-asked.test' },
    ];
    const { tables, result } = await readSlice(citations, slice, citationsClient(rows, [], calls));
    expect(result.status).toBe('complete');
    expect(calls[0]![1]).toMatchObject({ domains: ['news.test', 'shop.test'], period: 'day' });
    expect(tables.citation_daily).toHaveLength(6);
    expect(tables.citation_daily!.every((r) => r.dimension === 'domain')).toBe(true);
    expect(tables.citation_daily!.filter((r) => r.value === 'shop.test').map((r) => r.occurrences)).toEqual([3, 3, 3]);
    expect(scopes(citations, slice)).toEqual({
      citation_daily: { brand_id: BRAND, dimension: 'domain', value: ['news.test', 'shop.test'], day: DAYS },
    });
    expect(outsideScope(citations, slice, tables)).toEqual([]);
  });

  it('a domain batch is complete whether total_rows counts every row or the periods, and incomplete when it counts neither', async () => {
    const slice = sliceNamed(`${WINDOW}/domains-1`, ['news.test', 'shop.test']);
    const rows = [
      ...DAYS.map((date) => ({ date, occurrences: 50, change: 0 })),
      ...DAYS.map((date) => ({ date, occurrences: 2, change: 0, domain: 'news.test' })),
      ...DAYS.map((date) => ({ date, occurrences: 3, change: 0, domain: 'shop.test' })),
    ];
    const answering = (totalRows: number) => ({
      citations: async () => ({
        records: rows,
        rejects: [],
        info: { total_rows: totalRows },
        totalRows,
        ownership: [],
      }),
    });
    for (const [totalRows, status] of [
      [9, 'complete'],
      [3, 'complete'],
      [5, 'incomplete'],
    ] as const) {
      const { result } = await readSlice(citations, slice, answering(totalRows));
      expect({ totalRows, status: result.status }).toEqual({ totalRows, status });
    }
    // A rejected row of a period the valid rows count already: still the 3 periods.
    const rejecting = {
      citations: async () => ({
        records: rows.slice(1),
        rejects: [{ raw: rows[0], issues: ['occurrences: too small'], source: 'test' }],
        info: { total_rows: 3 },
        totalRows: 3,
        ownership: [],
      }),
    };
    expect((await readSlice(citations, slice, rejecting)).result.status).toBe('complete');
  });
});
