import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { phaseOf } from '../../src/engine/plan/plan.js';
import { citedPageFanouts, citedPageFanoutsEndpoint } from '../../src/streams/cited-page-fanouts.js';
import { BRAND, outsideScope, planInput, readSlice, scopes } from './harness.js';
import { parseConfig } from '../../src/configuration.js';

const DAYS = ['2026-11-19', '2026-11-20'];
const PAGES = ['https://shop.test/trail', 'https://shop.test/road'];

describe('cited page fanouts', () => {
  it('plans one slice per tracked page and window, after the pages are loaded', () => {
    const slices = citedPageFanouts.slices(planInput(DAYS, { dimensions: { pages: PAGES } }));
    expect(slices.map((slice) => slice.key)).toEqual([
      `${PAGES[0]}/2026-11-19..2026-11-20`,
      `${PAGES[1]}/2026-11-19..2026-11-20`,
    ]);
    expect(slices.every((slice) => slice.day === null && slice.from === DAYS[0] && slice.to === DAYS[1])).toBe(true);
    expect(citedPageFanouts.slices(planInput(DAYS))).toEqual([]);
    expect(phaseOf(citedPageFanouts, parseConfig({}).sync)).toBe(2);
  });

  it('asks the cited endpoint by url and keys rows by the page and window asked for', async () => {
    const slice = citedPageFanouts.slices(planInput(DAYS, { dimensions: { pages: PAGES } }))[0]!;
    const calls: unknown[][] = [];
    const client = {
      read: async function* (...args: unknown[]) {
        calls.push(args);
        const info = { page: 1, page_size: 100, total_rows: 2 };
        yield {
          records: [
            { id: 7, query: 'best trail shoe', conversations: 3, relevance: 0.75, tone: 'eager' },
            { id: 9, query: 'trail shoe', conversations: 1, relevance: 0.25 },
          ],
          rejects: [],
          totalRows: 2,
          info,
        };
      },
      close: async () => undefined,
    } as unknown as ApiClient;
    const { tables, result } = await readSlice(citedPageFanouts, slice, client);
    expect(result).toMatchObject({ status: 'complete', records: 2, totalRows: 2 });
    expect(calls[0]![0]).toBe(citedPageFanoutsEndpoint);
    expect(calls[0]!.slice(1)).toMatchObject([BRAND, { url: PAGES[0], startDate: DAYS[0], endDate: DAYS[1] }]);
    expect(tables.cited_page_fanouts).toEqual([
      {
        brand_id: BRAND,
        url: PAGES[0],
        window_start: DAYS[0],
        window_end: DAYS[1],
        id: 7,
        query: 'best trail shoe',
        conversations: 3,
        relevance: 0.75,
        _extra: { tone: 'eager' },
      },
      {
        brand_id: BRAND,
        url: PAGES[0],
        window_start: DAYS[0],
        window_end: DAYS[1],
        id: 9,
        query: 'trail shoe',
        conversations: 1,
        relevance: 0.25,
        _extra: null,
      },
    ]);
    expect(outsideScope(citedPageFanouts, slice, tables)).toEqual([]);
    expect(scopes(citedPageFanouts, slice)).toEqual({
      cited_page_fanouts: { brand_id: BRAND, url: PAGES[0], window_start: DAYS[0], window_end: DAYS[1] },
    });
  });

  it('sends the page under the url parameter, never domain', () => {
    expect(citedPageFanoutsEndpoint.query({ url: PAGES[0]!, startDate: DAYS[0] })).toMatchObject({
      url: PAGES[0],
      start_date: DAYS[0],
    });
    expect(citedPageFanoutsEndpoint.params).toContain('url');
    expect(citedPageFanoutsEndpoint.params).not.toContain('domain');
  });
});
