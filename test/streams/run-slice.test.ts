import { describe, expect, it } from 'vitest';
import { runSlice, type SliceChunk } from '../../src/streams/run-slice.js';
import { defineStream, type SourcePage } from '../../src/streams/stream.js';
import { templatesEndpoint } from '../../src/streams/templates.js';
import { parseConfig } from '../../src/configuration.js';

type Item = { id: number; day: string };

/** A stream over scripted pages: each read of the slice serves the next script. */
function scriptedStream(reads: Array<Array<SourcePage<Item>>>) {
  let read = 0;
  return defineStream<Item>({
    name: 'templates',
    endpoint: templatesEndpoint,
    slices: () => [],
    targets: () => [{ table: 't', mode: 'merge' }],
    read: async function* () {
      for (const page of reads[Math.min(read, reads.length - 1)]!) yield page;
      read += 1;
    },
    recordId: (record) => record.id,
    rows: (record, { brandId }) => ({ t: [{ brand_id: brandId, id: record.id }] }),
    infoRows: (page, { brandId }) => ({ totals: [{ brand_id: brandId, total: page.totalRows ?? null }] }),
  });
}

const page = (ids: number[], totalRows: number | undefined): SourcePage<Item> => ({
  records: ids.map((id) => ({ id, day: '2026-11-20' })),
  rejects: [],
  totalRows,
  info: {},
});

function memorySink() {
  const chunks: SliceChunk[] = [];
  let resets = 0;
  return {
    chunks,
    get resets() {
      return resets;
    },
    write: async (chunk: SliceChunk) => void chunks.push(chunk),
    reset: async () => {
      chunks.length = 0;
      resets += 1;
    },
  };
}

const context = {
  client: {} as never,
  brandId: 7,
  slice: { key: 'k', day: null, from: null, to: null, params: {} },
  sync: parseConfig({}).sync,
};

describe('runSlice', () => {
  it('chunks rows by size and adds the info rows of the last page', async () => {
    const sink = memorySink();
    const ids = Array.from({ length: 250 }, (_, i) => i + 1);
    const stream = scriptedStream([
      [page(ids.slice(0, 100), 250), page(ids.slice(100, 200), 250), page(ids.slice(200), 250)],
    ]);
    const result = await runSlice(stream, context, sink, { chunkRows: 120 });
    expect(result).toMatchObject({ status: 'complete', records: 250, rows: 251, totalRows: 250, reads: 1 });
    expect(sink.chunks.map((chunk) => chunk.tables.t?.length ?? 0)).toEqual([200, 50]);
    expect(sink.chunks.at(-1)!.tables.totals).toEqual([{ brand_id: 7, total: 250 }]);
  });

  it('reads again when a record was skipped by moving offsets, then succeeds', async () => {
    const sink = memorySink();
    // First read: a record shifted between pages, so id 3 was never seen and id 2 was seen twice.
    const stream = scriptedStream([
      [page([1, 2], 4), page([2, 4], 4)],
      [page([1, 2], 4), page([3, 4], 4)],
    ]);
    const result = await runSlice(stream, context, sink, { chunkRows: 1 });
    expect(result).toMatchObject({ status: 'complete', records: 4, reads: 2 });
    expect(sink.resets).toBe(1);
    expect(sink.chunks.flatMap((chunk) => chunk.tables.t ?? []).map((row) => row.id)).toEqual([1, 2, 3, 4]);
  });

  it('reads again when total_rows moved while paging, though the ids add up to the last count', async () => {
    const sink = memorySink();
    // Id 2 is deleted after page 1 was read: page 2 starts one record later, so id 3 falls between the pages, unread.
    const stream = scriptedStream([
      [page([1, 2], 4), page([4], 3)],
      [page([1, 3], 3), page([4], 3)],
    ]);
    const result = await runSlice(stream, context, sink, { chunkRows: 1 });
    expect(result).toMatchObject({ status: 'complete', records: 3, reads: 2 });
    expect(sink.chunks.flatMap((chunk) => chunk.tables.t ?? []).map((row) => row.id)).toEqual([1, 3, 4]);
    // A list that keeps moving ends incomplete, saying so.
    const moving = await runSlice(scriptedStream([[page([1, 2], 4), page([4], 3)]]), context, memorySink(), {
      completenessRetries: 1,
    });
    expect(moving).toMatchObject({
      status: 'incomplete',
      reads: 2,
      problem: expect.stringContaining('total_rows moved from 4 while the slice was paged'),
    });
  });

  it('reads again when a record of one page comes back on the next, though the count adds up or is given once', async () => {
    // Newest first, two a page: id 5 arrives after page 1 is read, so page 2 starts one later (3 again) and 5 is never
    // read. The API's count lags the arrival (4 on every page), or comes on the first page only.
    for (const laterTotal of [4, undefined]) {
      const sink = memorySink();
      const stream = scriptedStream([
        [page([4, 3], 4), page([3, 2], laterTotal), page([1], laterTotal)],
        [page([5, 4], 5), page([3, 2], undefined), page([1], undefined)],
      ]);
      const result = await runSlice(stream, context, sink, { chunkRows: 1 });
      // Both had loaded 4 of 5 records, complete.
      expect(result, String(laterTotal)).toMatchObject({ status: 'complete', records: 5, totalRows: 5, reads: 2 });
      expect(sink.chunks.flatMap((chunk) => chunk.tables.t ?? []).map((row) => row.id)).toEqual([5, 4, 3, 2, 1]);
    }
    const moving = await runSlice(
      scriptedStream([[page([4, 3], 4), page([3, 2], 4), page([1], 4)]]),
      context,
      memorySink(),
      { completenessRetries: 1 },
    );
    expect(moving).toMatchObject({
      status: 'incomplete',
      reads: 2,
      problem:
        'record 3 of an earlier page came back on page 2: the list moved while it was paged, so a record may have been skipped',
    });
  });

  it('keeps the count of the first page when later pages give none, and a repeat within one page is no shift', async () => {
    const result = await runSlice(scriptedStream([[page([4, 3], 4), page([2, 1], undefined)]]), context, memorySink());
    // The count had been read from the last page alone: none, so nothing was checked and _sync_state said null.
    expect(result).toMatchObject({ status: 'complete', records: 4, totalRows: 4, reads: 1 });
    const repeatedOnOnePage = await runSlice(
      scriptedStream([[page([4, 4, 3], 3), page([2], 3)]]),
      context,
      memorySink(),
    );
    expect(repeatedOnOnePage).toMatchObject({ status: 'complete', records: 3 });
  });

  it('reports a slice that never adds up as incomplete, with why', async () => {
    const sink = memorySink();
    const stream = scriptedStream([[page([1, 2], 5)]]);
    const result = await runSlice(stream, context, sink, { completenessRetries: 1 });
    expect(result.status).toBe('incomplete');
    expect(result.reads).toBe(2);
    expect(result.problem).toContain('total_rows 5');
  });

  it('counts rejected records as read, so a page with a bad record is still complete', async () => {
    const sink = memorySink();
    const withReject: SourcePage<Item> = {
      ...page([1], 2),
      rejects: [{ raw: { id: 'x' }, issues: ['id: expected int'], source: 'GET /x page 1' }],
    };
    const result = await runSlice(scriptedStream([[withReject]]), context, sink);
    expect(result).toMatchObject({ status: 'complete', records: 1, rejects: 1 });
    expect(sink.chunks[0]!.rejects).toHaveLength(1);
  });
});
