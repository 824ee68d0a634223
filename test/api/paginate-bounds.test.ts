import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_PAGES, PagingInconsistency, pageLimit, paginate, type PagingInfo } from '../../src/api/paginate.js';

/**
 * Paging against an API never seen: whatever `total_rows`, page echo or page contents it sends, a read ends after a
 * bounded number of requests, and says why when it stopped early.
 */

const record = z.object({ id: z.number().int() });

/** Runs paginate over a scripted API; returns the pages read, the requests made and how it ended. */
async function read(answer: (page: number, pageSize: number) => { data: unknown[]; info: PagingInfo }, pageSize = 10) {
  const asked: number[] = [];
  const pages: number[][] = [];
  let error: unknown;
  try {
    for await (const page of paginate({
      schema: record,
      pageSize,
      describe: (page) => `GET /x page ${page}`,
      fetchPage: async (page, size) => {
        asked.push(page);
        return answer(page, size);
      },
    })) {
      pages.push(page.records.map((r) => r.id));
    }
  } catch (caught) {
    error = caught;
  }
  return { asked, pages, error };
}

const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ id: from + i }));

describe('paging bounds', () => {
  it("bounds a read by the first page's total_rows: an API that always sends full pages stops with the reason", async () => {
    // total_rows 30 (3 pages of 10) on the first page, then full pages forever with a total that keeps growing.
    const { asked, pages, error } = await read((page) => ({
      data: ids(page * 100, 10),
      info: { page, total_rows: page === 1 ? 30 : 1_000_000 * page },
    }));
    expect(asked).toHaveLength(pageLimit(30, 10));
    expect(pages).toHaveLength(pageLimit(30, 10));
    expect(error).toBeInstanceOf(PagingInconsistency);
    expect(error).toMatchObject({ problem: 'page_limit' });
    expect((error as Error).message).toMatch(
      /still full pages after 16 pages, the most that total_rows 30 of the first page allows at 10 a page/,
    );
  });

  it("is bounded even when the first page's total_rows is absurd or missing", async () => {
    expect(pageLimit(Number.MAX_SAFE_INTEGER, 100)).toBe(MAX_PAGES);
    expect(pageLimit(undefined, 100)).toBe(MAX_PAGES);
    expect(pageLimit(0, 100)).toBe(12);
  });

  it('stops when a page repeats the one before record for record (an API ignoring the page, without an echo)', async () => {
    const { asked, pages, error } = await read(() => ({ data: ids(1, 10), info: { total_rows: 1_000 } }));
    expect(asked).toEqual([1, 2]);
    expect(pages).toEqual([ids(1, 10).map((r) => r.id)]);
    expect(error).toMatchObject({ problem: 'page_repeat' });
    expect((error as Error).message).toMatch(/page 2 repeats page 1/);
  });

  it('ends a read without total_rows whose page past the end repeats the last: an API serving its last page again', async () => {
    // 20 records at 10 a page; any page past the second answers the second again.
    const { asked, pages, error } = await read((page) => ({ data: ids(Math.min(page, 2) * 10, 10), info: {} }));
    expect(error).toBeUndefined();
    expect(asked).toEqual([1, 2, 3]);
    expect(pages.flat()).toEqual([...ids(10, 10), ...ids(20, 10)].map((r) => r.id));
    // With a total_rows that promises more, the same repeat is the inconsistency it was.
    const promised = await read((page) => ({ data: ids(Math.min(page, 2) * 10, 10), info: { total_rows: 50 } }));
    expect(promised.error).toMatchObject({ problem: 'page_repeat' });
  });

  it('refuses a page numbered otherwise than asked, handing over its records to be quarantined', async () => {
    const { asked, pages, error } = await read((page) => ({
      data: ids(page * 10, 10),
      info: { page: page === 1 ? 1 : page + 1, total_rows: 50 },
    }));
    expect(asked).toEqual([1, 2]);
    expect(pages).toHaveLength(1);
    expect(error).toBeInstanceOf(PagingInconsistency);
    expect(error).toMatchObject({ problem: 'page_echo', page: 2 });
    expect((error as PagingInconsistency).refused).toEqual(ids(20, 10));
    expect((error as Error).message).toBe(
      'GET /x page 2: asked for page 2, the API answered page 3; check api.params.page',
    );
  });

  it('does not believe a page_size echo above the size asked for, so full pages are not taken for short ones', async () => {
    const { asked, pages, error } = await read((page) => ({
      data: page <= 3 ? ids(page * 10, 10) : [],
      info: { page, page_size: 1_000, total_rows: 30 },
    }));
    expect(error).toBeUndefined();
    expect(asked).toEqual([1, 2, 3]);
    expect(pages.flat()).toHaveLength(30);
  });

  it('treats a total_rows that is not a count as not given', async () => {
    const { asked, pages } = await read((page) => ({
      data: page === 1 ? ids(1, 10) : ids(11, 3),
      info: { page, total_rows: -7.5 },
    }));
    expect(asked).toEqual([1, 2]);
    expect(pages.flat()).toHaveLength(13);
  });
});
