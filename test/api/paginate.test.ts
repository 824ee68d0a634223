import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { named, type NamedClient } from '../support/named-client.js';
import { PagingError } from '../../src/api/errors.js';
import { MAX_PAGE_SIZE } from '../../src/api/paginate.js';
import { PRODUCT_RANKING_MAX_PAGE_SIZE } from '../../src/streams/product-ranking.js';
import { collect, conversation, mockApi, mockConfig, type MockReply } from './mock-api.js';

let client: NamedClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

/** A paged conversations endpoint over `rows()`, read at the moment each page is asked. */
function pagedServer(
  rows: (page: number) => number[],
  extra: (page: number) => Partial<Record<string, unknown>> = () => ({}),
) {
  return mockApi((url): MockReply => {
    const page = Number(url.searchParams.get('page'));
    const size = Number(url.searchParams.get('page_size'));
    const all = rows(page);
    const data = all.slice((page - 1) * size, page * size).map(conversation);
    return { body: { data, info: { page, page_size: size, total_rows: all.length, ...extra(page) } } };
  });
}

function ids(pages: Array<{ records: Array<{ id: number }> }>): number[] {
  return pages.flatMap((p) => p.records.map((r) => r.id));
}

describe('paging', () => {
  it('reads every page of an exact multiple, stopping on total_rows without asking for an empty page', async () => {
    const all = Array.from({ length: 6 }, (_, i) => i + 1);
    const { agent, requests } = pagedServer(() => all);
    client = named(createApiClient(mockConfig({ pageSize: 2 }), { dispatcher: agent }));
    const pages = await collect(client.conversations(7));
    expect(ids(pages)).toEqual(all);
    expect(requests.map((u) => u.searchParams.get('page'))).toEqual(['1', '2', '3']);
    expect(pages.every((p) => p.totalRows === 6)).toBe(true);
    expect(pages[0]!.requestInfo.source).toBe('GET /customer/v1/brands/7/conversations page 1');
  });

  it('reads past a full first page whose total_rows counts only that page: one request more, the set whole', async () => {
    // An API whose total_rows is the page's length: believed, every read would have ended at its first page.
    const all = [1, 2, 3, 4, 5];
    const { agent, requests } = mockApi((url): MockReply => {
      const page = Number(url.searchParams.get('page'));
      const data = all.slice((page - 1) * 2, page * 2).map(conversation);
      return { body: { data, info: { page, page_size: 2, total_rows: data.length } } };
    });
    client = named(createApiClient(mockConfig({ pageSize: 2 }), { dispatcher: agent }));
    const pages = await collect(client.conversations(7));
    expect(ids(pages)).toEqual(all);
    expect(requests).toHaveLength(3);
    await client.close();

    // A set of exactly one page is what costs the request more: page 2 comes back empty.
    const exact = pagedServer(() => [1, 2]);
    client = named(createApiClient(mockConfig({ pageSize: 2 }), { dispatcher: exact.agent }));
    expect(ids(await collect(client.conversations(7)))).toEqual([1, 2]);
    expect(exact.requests.map((u) => u.searchParams.get('page'))).toEqual(['1', '2']);
  });

  it('reads an API that numbers its pages from 0 with api.firstPage 0: the paging arithmetic counts pages read', async () => {
    const all = [1, 2, 3, 4, 5, 6];
    const { agent, requests } = mockApi((url): MockReply => {
      const page = Number(url.searchParams.get('page'));
      const data = all.slice(page * 2, page * 2 + 2).map(conversation);
      return { body: { data, info: { page, page_size: 2, total_rows: all.length } } };
    });
    client = named(createApiClient(mockConfig({ pageSize: 2, firstPage: 0 }), { dispatcher: agent }));
    expect(ids(await collect(client.conversations(7)))).toEqual(all);
    expect(requests.map((u) => u.searchParams.get('page'))).toEqual(['0', '1', '2']);
  });

  it("starts past the pages skipPages passes over, counted from api.firstPage (doctor reads a set's last page alone)", async () => {
    for (const firstPage of [1, 0] as const) {
      const all = [1, 2, 3, 4, 5];
      const { agent, requests } = mockApi((url): MockReply => {
        const index = Number(url.searchParams.get('page')) - firstPage;
        return {
          body: {
            data: all.slice(index * 2, index * 2 + 2).map(conversation),
            info: { page: index + firstPage, page_size: 2, total_rows: all.length },
          },
        };
      });
      client = named(createApiClient(mockConfig({ pageSize: 2, firstPage }), { dispatcher: agent }));
      const pages = client.conversations(7, { skipPages: 2 });
      const last = await pages.next();
      await pages.return(undefined as never);
      expect(last.done ? [] : ids([last.value])).toEqual([5]);
      expect(requests.map((u) => u.searchParams.get('page'))).toEqual([String(firstPage + 2)]);
      await client.close();
      client = undefined;
    }
  });

  it('stops on a short page that reaches total_rows, or with none given', async () => {
    for (const info of [() => ({ total_rows: 5 }), () => ({ total_rows: undefined })]) {
      const { agent, requests } = pagedServer(() => [1, 2, 3, 4, 5], info);
      client = named(createApiClient(mockConfig({ pageSize: 2 }), { dispatcher: agent }));
      const pages = await collect(client.conversations(7));
      expect(ids(pages)).toEqual([1, 2, 3, 4, 5]);
      expect(requests).toHaveLength(3);
      await client.close();
      client = undefined;
    }
  });

  it('stops on a short page after full ones whatever total_rows says', async () => {
    const { agent, requests } = pagedServer(
      () => [1, 2, 3, 4, 5],
      () => ({ total_rows: 99 }),
    );
    client = named(createApiClient(mockConfig({ pageSize: 2 }), { dispatcher: agent }));
    const pages = await collect(client.conversations(7));
    expect(ids(pages)).toEqual([1, 2, 3, 4, 5]);
    expect(requests).toHaveLength(3);
    // What total_rows said is reported, so the caller sees 5 records against 99.
    expect(pages.at(-1)!.totalRows).toBe(99);
  });

  it("takes a short first page that total_rows says is not all as the API's page size, and stops on a page of another", async () => {
    // Pages of 3 whatever is asked, none echoing its size, then a page of 4: not an API keeping to a size.
    const sizes = [3, 3, 4, 3];
    let next = 0;
    const { agent, requests } = mockApi((url): MockReply => {
      const page = Number(url.searchParams.get('page'));
      const data = Array.from({ length: sizes[page - 1] ?? 0 }, () => conversation(next++));
      return { body: { data, info: { page, total_rows: 13 } } };
    });
    client = named(createApiClient(mockConfig({ pageSize: 10 }), { dispatcher: agent }));
    const pages = await collect(client.conversations(7));
    expect(pages.map((page) => page.records.length)).toEqual([3, 3, 4]);
    expect(requests).toHaveLength(3);
  });

  it('without total_rows, reads on after a short first page: the API may cap its pages without saying so', async () => {
    /** 112 records served 50 a page whatever is asked, with no total_rows, and `info` as `echo` makes it. */
    const cappedAt50 = (echo: (url: URL) => Record<string, unknown>) =>
      mockApi((url): MockReply => {
        const page = Number(url.searchParams.get('page'));
        const data = Array.from({ length: Math.max(0, Math.min(50, 112 - (page - 1) * 50)) }, (_, i) =>
          conversation((page - 1) * 50 + i),
        );
        return { body: { data, info: { page, ...echo(url) } } };
      });
    const pageSizes = async (api: ReturnType<typeof mockApi>) => {
      client = named(createApiClient(mockConfig({ pageSize: 100 }), { dispatcher: api.agent }));
      return (await collect(client.conversations(7))).map((page) => page.records.length);
    };
    // Pages of 50, 50, 12, then nothing.
    const capped = cappedAt50(() => ({}));
    expect(await pageSizes(capped)).toEqual([50, 50, 12]);
    expect(capped.requests).toHaveLength(3);
    // Uncapped, a short first page costs one request more, answered empty.
    const whole = mockApi(
      (url): MockReply => ({
        body: { data: Number(url.searchParams.get('page')) === 1 ? [conversation(1), conversation(2)] : [], info: {} },
      }),
    );
    expect(await pageSizes(whole)).toEqual([2]);
    expect(whole.requests).toHaveLength(2);
    // An echo of the size asked settles nothing: an API that caps its pages at 50 may repeat the 100 it was sent.
    expect(await pageSizes(cappedAt50((url) => ({ page_size: Number(url.searchParams.get('page_size')) })))).toEqual([
      50, 50, 12,
    ]);
    // An echo below the size asked does: a first page short of it is the last, with no request more.
    const echoed = mockApi(
      (url): MockReply => ({
        body: {
          data: Number(url.searchParams.get('page')) === 1 ? [conversation(1), conversation(2)] : [],
          info: { page_size: 50 },
        },
      }),
    );
    expect(await pageSizes(echoed)).toEqual([2]);
    expect(echoed.requests).toHaveLength(1);
    // An echo of a smaller size it keeps to (50): 50, 50, 12, and no request after the 12.
    const cappedEchoed = cappedAt50(() => ({ page_size: 50 }));
    expect(await pageSizes(cappedEchoed)).toEqual([50, 50, 12]);
    expect(cappedEchoed.requests).toHaveLength(3);
  });

  it('yields an empty first page (so callers learn total_rows) and stops', async () => {
    const { agent, requests } = pagedServer(() => []);
    client = named(createApiClient(mockConfig({ pageSize: 2 }), { dispatcher: agent }));
    const pages = await collect(client.conversations(7));
    expect(pages).toHaveLength(1);
    expect(pages[0]!.records).toEqual([]);
    expect(pages[0]!.totalRows).toBe(0);
    expect(requests).toHaveLength(1);
  });

  it('stops on an empty page when total_rows promised more (rows vanished)', async () => {
    // Full pages until page 3, which is beyond what exists although total_rows still says 10.
    const { agent, requests } = pagedServer(
      (page) => (page < 3 ? [1, 2, 3, 4] : []),
      () => ({ total_rows: 10 }),
    );
    client = named(createApiClient(mockConfig({ pageSize: 2 }), { dispatcher: agent }));
    const pages = await collect(client.conversations(7));
    expect(ids(pages)).toEqual([1, 2, 3, 4]);
    expect(requests).toHaveLength(3);
    expect(pages).toHaveLength(2);
  });

  it('follows total_rows when it grows while paging', async () => {
    // 4 rows when page 1 is read, 7 from page 2 on: the generator must read on to page 4.
    const { agent, requests } = pagedServer((page) => Array.from({ length: page === 1 ? 4 : 7 }, (_, i) => i + 1));
    client = named(createApiClient(mockConfig({ pageSize: 2 }), { dispatcher: agent }));
    const stream = client.conversations(7);
    const pages = [];
    let next = await stream.next();
    while (!next.done) {
      pages.push(next.value);
      next = await stream.next();
    }
    expect(ids(pages)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(requests).toHaveLength(4);
    expect(next.value).toMatchObject({ pages: 4, records: 7, firstTotalRows: 4, lastTotalRows: 7 });
  });

  it('reads past a total_rows the pages have outgrown (a count cached behind its list), to the short page', async () => {
    // 7 records, total_rows stuck at 3: page 2 holds records 3 and 4, more than the count allows, so it is stale.
    const { agent, requests } = pagedServer(
      () => [1, 2, 3, 4, 5, 6, 7],
      () => ({ total_rows: 3 }),
    );
    client = named(createApiClient(mockConfig({ pageSize: 2 }), { dispatcher: agent }));
    const pages = await collect(client.conversations(7));
    expect(ids(pages)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(requests).toHaveLength(4);
    expect(pages.at(-1)!.totalRows).toBe(3);
  });

  it('follows total_rows when it shrinks while paging', async () => {
    const { agent, requests } = pagedServer((page) => Array.from({ length: page === 1 ? 10 : 4 }, (_, i) => i + 1));
    client = named(createApiClient(mockConfig({ pageSize: 2 }), { dispatcher: agent }));
    const pages = await collect(client.conversations(7));
    expect(ids(pages)).toEqual([1, 2, 3, 4]);
    expect(requests).toHaveLength(2);
    expect(pages.map((p) => p.totalRows)).toEqual([10, 4]);
  });

  it('fails clearly when the API ignores the page parameter (wrong mapping), instead of looping', async () => {
    const { agent } = mockApi(() => ({
      body: { data: [conversation(1), conversation(2)], info: { page: 1, page_size: 2, total_rows: 6 } },
    }));
    client = named(createApiClient(mockConfig({ pageSize: 2 }), { dispatcher: agent }));
    await expect(collect(client.conversations(7))).rejects.toBeInstanceOf(PagingError);
  });

  it('caps page_size at 100, and at 50 for product ranking', async () => {
    const { agent, requests } = mockApi(() => ({ body: { data: [], info: { total_rows: 0 } } }));
    client = named(createApiClient(mockConfig(), { dispatcher: agent }));
    await collect(client.conversations(7, { pageSize: 500 }));
    await collect(client.productRanking(7, { pageSize: 100 }));
    await collect(client.productRanking(7));
    expect(requests.map((u) => Number(u.searchParams.get('page_size')))).toEqual([
      MAX_PAGE_SIZE,
      PRODUCT_RANKING_MAX_PAGE_SIZE,
      PRODUCT_RANKING_MAX_PAGE_SIZE,
    ]);
  });

  it('pages with the configured wire names', async () => {
    const { agent, requests } = mockApi((url) => {
      const page = Number(url.searchParams.get('p'));
      return {
        body: {
          data: page === 1 ? [conversation(1), conversation(2)] : [conversation(3)],
          info: { page, page_size: 2, total_rows: 3 },
        },
      };
    });
    client = named(
      createApiClient(mockConfig({ pageSize: 2, params: { page: 'p', page_size: 'per_page' } }), { dispatcher: agent }),
    );
    const pages = await collect(client.conversations(7));
    expect(ids(pages)).toEqual([1, 2, 3]);
    expect(requests[1]!.search).toBe('?p=2&per_page=2');
  });

  it('quarantines invalid records one by one and delivers the rest of the page', async () => {
    const { agent } = mockApi(() => ({
      body: {
        data: [
          conversation(1),
          { ...conversation(2), date: 'yesterday' },
          { ...conversation(3), id: 'x' },
          conversation(4),
        ],
        info: { page: 1, page_size: 10, total_rows: 4 },
      },
    }));
    client = named(createApiClient(mockConfig({ pageSize: 10 }), { dispatcher: agent }));
    const [page] = await collect(client.conversations(7));
    expect(page!.records.map((r) => r.id)).toEqual([1, 4]);
    expect(page!.rejects).toHaveLength(2);
    expect(page!.rejects[0]).toMatchObject({
      raw: { id: 2, date: 'yesterday' },
      source: 'GET /customer/v1/brands/7/conversations page 1',
    });
    expect(page!.rejects[0]!.issues[0]).toMatch(/^date: /);
    expect(page!.rejects[1]!.issues[0]).toMatch(/^id: /);
  });
});
