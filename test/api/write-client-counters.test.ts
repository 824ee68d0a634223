import { afterEach, describe, expect, it } from 'vitest';
import { createWriteClient, type WriteClient } from '../../src/api/writes/writes.js';
import { mockApi, mockConfig } from './mock-api.js';

/**
 * The write client reads the lists `plan` compares against (tracked URLs, competitors) with the counters as the
 * streams read them: an API that sends `info` counters as digit strings is one `sync` loads, so `plan` must not stop on it.
 */
let client: WriteClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

describe('the write client reading lists for plan', () => {
  it('reads tracked-URL pages whose page, page_size and total_rows are digit strings, and pages by them', async () => {
    const all = [1, 2, 3].map((id) => ({ id, url: `https://acme.test/${id}`, title: `Page ${id}` }));
    const { agent, requests } = mockApi((url) => {
      const page = Number(url.searchParams.get('page'));
      const size = Number(url.searchParams.get('page_size'));
      return {
        body: {
          data: all.slice((page - 1) * size, page * size),
          info: { page: String(page), page_size: String(size), total_rows: '3' },
        },
      };
    });
    client = createWriteClient(mockConfig({ pageSize: 2 }), { dispatcher: agent });
    expect((await client.trackedPages(7)).map((page) => page.id)).toEqual([1, 2, 3]);
    expect(requests).toHaveLength(2);
  });

  it('reads a competitors list whose total_rows is a digit string, and still refuses one that is no count', async () => {
    let totalRows: unknown = '1';
    const { agent } = mockApi(() => ({
      body: { data: [{ id: 9, name: 'Rival', is_actual: true }], info: { total_rows: totalRows } },
    }));
    client = createWriteClient(mockConfig(), { dispatcher: agent });
    expect(await client.competitors(7)).toEqual([{ id: 9, name: 'Rival', website: undefined, tracked: true }]);
    totalRows = 'many';
    await expect(client.competitors(7)).rejects.toThrow(
      /GET \/customer\/v1\/brands\/7\/competitors: the answer does not match the spec: info\.total_rows/,
    );
  });
});
