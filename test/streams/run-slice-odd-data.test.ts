import { describe, expect, it } from 'vitest';
import { PagingInconsistency } from '../../src/api/paginate.js';
import { runSlice, type SliceChunk } from '../../src/streams/run-slice.js';
import { defineStream, type SourcePage } from '../../src/streams/stream.js';
import { conversationsEndpoint } from '../../src/streams/conversations.js';
import { parseConfig } from '../../src/configuration.js';

/**
 * Odd data never fails a slice's read: what cannot be trusted is quarantined with what was asked and what came, the
 * slice says incomplete (failed when nothing of it could be trusted), and a read is repeated only when another read
 * may come out otherwise.
 */

type Item = { id: number; day: string; domain?: string; n?: number };

const DAY = '2026-11-20';

/** A stream of one day whose rows carry the record's own day and domain; each read serves the next script. */
function scriptedStream(reads: Array<() => AsyncIterable<SourcePage<Item>>>) {
  let read = 0;
  return defineStream<Item>({
    name: 'conversations',
    endpoint: conversationsEndpoint,
    slices: () => [],
    targets: ({ brandId }) => [
      { table: 't', mode: 'replace', scope: { brand_id: brandId, day: DAY, domain: ['a.test', 'b.test'] } },
    ],
    read: () => reads[Math.min(read++, reads.length - 1)]!(),
    recordId: (record) => record.id,
    rows: (record, { brandId }) => ({
      t: [{ brand_id: brandId, id: record.id, day: record.day, domain: record.domain ?? 'a.test', n: record.n ?? 0 }],
    }),
  });
}

const item = (id: number, extra: Partial<Item> = {}): Item => ({ id, day: DAY, ...extra });
const page = (records: Item[], totalRows: number | undefined): SourcePage<Item> => ({
  records,
  rejects: [],
  totalRows,
  info: {},
});
const pages = (...list: SourcePage<Item>[]) =>
  async function* () {
    for (const p of list) yield p;
  };

function memorySink() {
  const chunks: SliceChunk[] = [];
  return {
    chunks,
    write: async (chunk: SliceChunk) => void chunks.push(chunk),
    reset: async () => void (chunks.length = 0),
  };
}

const context = {
  client: {} as never,
  brandId: 7,
  slice: { key: DAY, day: DAY, from: DAY, to: DAY, params: {} },
  sync: parseConfig({}).sync,
};
const rowsOf = (sink: ReturnType<typeof memorySink>) => sink.chunks.flatMap((chunk) => chunk.tables.t ?? []);
const rejectsOf = (sink: ReturnType<typeof memorySink>) => sink.chunks.flatMap((chunk) => chunk.rejects);

describe('runSlice with odd data', () => {
  it('quarantines a record dated outside the slice, says what was asked and what came, and reads once', async () => {
    const sink = memorySink();
    const stream = scriptedStream([pages(page([item(1), item(2, { day: '2026-11-30' }), item(3)], 3))]);
    const result = await runSlice(stream, context, sink);
    expect(result).toMatchObject({
      status: 'incomplete',
      records: 2,
      rejects: 1,
      reads: 1,
      problemCode: 'out_of_scope',
    });
    expect(result.problem).toBe(`t row dated 2026-11-30 outside the slice's window ${DAY}..${DAY}`);
    expect(rowsOf(sink).map((row) => row.id)).toEqual([1, 3]);
    expect(rejectsOf(sink)).toEqual([
      { raw: item(2, { day: '2026-11-30' }), issues: [result.problem], source: `conversations brand 7 slice ${DAY}` },
    ]);
  });

  it('quarantines a record of a value not asked for, and the slice stays complete: nothing of it is missing', async () => {
    const sink = memorySink();
    const result = await runSlice(
      scriptedStream([pages(page([item(1), item(2, { domain: 'other.test' })], 2))]),
      context,
      sink,
    );
    expect(result).toMatchObject({ status: 'complete', records: 1, rejects: 1 });
    expect(rejectsOf(sink)[0]!.issues).toEqual([
      't row with domain "other.test" outside the slice\'s scope (asked for domain "a.test", "b.test")',
    ]);
  });

  it('keeps the first record of an id and quarantines a later one with other content; an identical repeat loads once', async () => {
    const sink = memorySink();
    const stream = scriptedStream([pages(page([item(1), item(2)], 3), page([item(2), item(1, { n: 5 }), item(3)], 3))]);
    const result = await runSlice(stream, context, sink, { completenessRetries: 0 });
    expect(result).toMatchObject({ status: 'incomplete', records: 3, rejects: 1, problemCode: 'duplicate_key' });
    expect(rowsOf(sink).map((row) => [row.id, row.n])).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
    ]);
    expect(rejectsOf(sink)[0]).toMatchObject({ raw: item(1, { n: 5 }) });
    expect(result.problem).toMatch(
      /^duplicate id 1 with content other than the record of that id read earlier in this slice/,
    );
  });

  it('reads again after a repeated id with other content (the data moved), and is complete when it reads clean', async () => {
    const sink = memorySink();
    const stream = scriptedStream([pages(page([item(1), item(1, { n: 1 })], 1)), pages(page([item(1)], 1))]);
    const result = await runSlice(stream, context, sink);
    expect(result).toMatchObject({ status: 'complete', reads: 2, rejects: 0 });
  });

  it('keeps the pages read before a page numbered otherwise than asked, quarantines that page and reads once', async () => {
    const sink = memorySink();
    const refused = new PagingInconsistency(
      'GET /x page 2: asked for page 2, the API answered page 3; check api.params.page',
      'page_echo',
      2,
      [{ id: 9 }],
      'GET /x page 2',
    );
    const stream = scriptedStream([
      async function* () {
        yield page([item(1), item(2)], 4);
        throw refused;
      },
    ]);
    const result = await runSlice(stream, context, sink);
    expect(result).toMatchObject({
      status: 'incomplete',
      records: 2,
      rejects: 1,
      reads: 1,
      problemCode: 'paging_mismatch',
    });
    expect(rejectsOf(sink)).toEqual([{ raw: { id: 9 }, issues: [refused.message], source: 'GET /x page 2' }]);
    // The count (2 of 4) is short too, but another read would meet the same refusal.
    expect(result.problem).toContain('asked for page 2, the API answered page 3');
  });

  it('fails the slice, with the reason and the records quarantined, when its first page is refused', async () => {
    const sink = memorySink();
    const refused = new PagingInconsistency(
      'GET /x page 1: asked for page 1, the API answered page 7; check api.params.page',
      'page_echo',
      1,
      [{ id: 1 }, { id: 2 }],
      'GET /x page 1',
    );
    const stream = scriptedStream([
      async function* () {
        throw refused;
      },
    ]);
    const result = await runSlice(stream, context, sink);
    expect(result).toMatchObject({ status: 'failed', records: 0, rejects: 2, reads: 1 });
    expect(rejectsOf(sink)).toHaveLength(2);
  });

  it('quarantines a record the stream cannot make into rows, instead of failing the read', async () => {
    const sink = memorySink();
    const base = scriptedStream([pages(page([item(1), item(2), item(3)], 3))]);
    const stream = {
      ...base,
      rows: (record: unknown, context: Parameters<typeof base.rows>[1]) => {
        if ((record as Item).id === 2) throw new RangeError('Invalid time value');
        return base.rows(record as Item, context);
      },
    };
    const result = await runSlice(stream, context, sink);
    expect(result).toMatchObject({
      status: 'incomplete',
      records: 2,
      rejects: 1,
      reads: 1,
      problemCode: 'row_invalid',
    });
    expect(rejectsOf(sink)[0]).toMatchObject({
      raw: item(2),
      issues: ['the record could not be made into rows: Invalid time value'],
    });
  });

  it('treats a total_rows that is not a count as not given', async () => {
    const sink = memorySink();
    const result = await runSlice(scriptedStream([pages(page([item(1)], -3.5))]), context, sink);
    expect(result).toMatchObject({ status: 'complete', totalRows: null, reads: 1 });
  });
});
