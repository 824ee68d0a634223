import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../support/tmp.js';
import { completeState, conversationRows, sliceBatch } from './batches.js';
import type { SliceBatch } from '../../src/warehouse/load/slice-batch.js';

let tmp: ReturnType<typeof tempDir>;
let wh: Warehouse;

beforeEach(async () => {
  tmp = tempDir('loader');
  wh = await openWarehouse(join(tmp.path, 'bv.work.duckdb'));
});
afterEach(async () => {
  await wh.close();
  tmp.remove();
});

/** A conversations slice of one day: conversations merged by key, their brands replaced for the day. */
function conversationsSlice(day: string, ids: number[], overrides: Partial<SliceBatch> = {}): SliceBatch {
  const rows = ids.map((id) => conversationRows(day, 1, id)[0]!);
  return sliceBatch({
    stream: 'conversations',
    sliceKey: day,
    day,
    writes: [
      { table: 'conversations', mode: 'merge', rows },
      {
        table: 'conversation_brands',
        mode: 'replace',
        scope: { day },
        rows: ids.flatMap((id) => [
          { conversation_id: id, ordinal: 0, day, name: 'Own', is_own_brand: true, position: 1 },
          { conversation_id: id, ordinal: 1, day, name: `Rival ${id}`, is_own_brand: false, position: 2 },
        ]),
      },
    ],
    state: completeState({ rows: ids.length, totalRows: ids.length }),
    ...overrides,
  });
}

/** Every row of a table minus the load time, in key order: what must not change between equal loads. */
async function snapshot(table: string, orderBy: string): Promise<unknown[]> {
  return wh.query(`SELECT * EXCLUDE (_synced_at) FROM ${table} ORDER BY ${orderBy}`);
}

describe('loading a slice', () => {
  it('writes every table, fills brand_id, _run_id and _synced_at, and converts the types', async () => {
    const result = await wh.loadSlice(conversationsSlice('2026-11-20', [1, 2, 10]));
    expect(result.tables.map((t) => [t.table, t.written])).toEqual([
      ['conversations', 3],
      ['conversation_brands', 6],
    ]);
    const [row] = await wh.query(`SELECT brand_id, CAST("day" AS VARCHAR) AS day, "date", _run_id, _extra, _synced_at
                                  FROM conversations WHERE id = 10`);
    expect(row).toMatchObject({
      brand_id: 7,
      day: '2026-11-20',
      date: '2026-11-20T00:15:00.000Z',
      _run_id: 'run-1',
      _extra: '{"surprise":10}',
    });
    expect(Date.now() - Date.parse(row!._synced_at as string)).toBeLessThan(60_000);

    await wh.loadSlice(
      sliceBatch({
        stream: 'articles',
        writes: [
          {
            table: 'articles',
            mode: 'merge',
            rows: [
              {
                id: 5,
                title: 'T',
                topic_ids: [1, 2],
                scenario_ids: [],
                created_at: '2026-11-01T00:00:00Z',
                _extra: { views: 3 },
              },
            ],
          },
        ],
      }),
    );
    expect(
      await wh.query(`SELECT topic_ids, scenario_ids, created_at, _extra->>'views' AS views FROM articles`),
    ).toEqual([{ topic_ids: [1, 2], scenario_ids: [], created_at: '2026-11-01T00:00:00.000Z', views: '3' }]);
  });

  it('gives the same tables when the same slice is loaded twice', async () => {
    await wh.loadSlice(conversationsSlice('2026-11-20', [1, 2, 3]));
    const first = [
      await snapshot('conversations', 'id'),
      await snapshot('conversation_brands', 'conversation_id, ordinal'),
    ];
    await wh.loadSlice(conversationsSlice('2026-11-20', [1, 2, 3]));
    expect([
      await snapshot('conversations', 'id'),
      await snapshot('conversation_brands', 'conversation_id, ordinal'),
    ]).toEqual(first);
  });

  it('leaves nothing stale when a re-load brings fewer rows', async () => {
    await wh.loadSlice(conversationsSlice('2026-11-20', [1, 2, 3]));
    await wh.loadSlice(conversationsSlice('2026-11-21', [4]));
    const result = await wh.loadSlice(conversationsSlice('2026-11-20', [2]));
    expect(result.tables.find((t) => t.table === 'conversation_brands')).toMatchObject({ deleted: 6, written: 2 });
    expect(await wh.query(`SELECT conversation_id, ordinal FROM conversation_brands ORDER BY 1, 2`)).toEqual([
      { conversation_id: 2, ordinal: 0 },
      { conversation_id: 2, ordinal: 1 },
      { conversation_id: 4, ordinal: 0 },
      { conversation_id: 4, ordinal: 1 },
    ]);
  });

  it('keeps the LAST of duplicate keys inside one batch, in merge and in replace', async () => {
    const rows = [
      ...conversationRows('2026-11-20', 3, 1),
      { ...conversationRows('2026-11-20', 1, 2)[0]!, model: 'later' },
    ];
    await wh.loadSlice(
      sliceBatch({
        writes: [
          { table: 'conversations', mode: 'merge', rows },
          {
            table: 'tracked_url_daily',
            mode: 'replace',
            scope: { day: '2026-11-20' },
            rows: [
              { tracked_url_id: 1, day: '2026-11-20', citations: 1 },
              { tracked_url_id: 1, day: '2026-11-20', citations: 9 },
            ],
          },
        ],
      }),
    );
    expect(await wh.query(`SELECT id, model FROM conversations ORDER BY id`)).toEqual([
      { id: 1, model: 'engine-1' },
      { id: 2, model: 'later' },
      { id: 3, model: 'engine-3' },
    ]);
    expect(await wh.query(`SELECT citations FROM tracked_url_daily`)).toEqual([{ citations: 9 }]);
  });

  it('merges entities by key: an update changes the row, an absent entity stays', async () => {
    await wh.loadSlice(
      sliceBatch({
        writes: [
          {
            table: 'competitors',
            mode: 'merge',
            rows: [
              { id: 1, name: 'A', is_actual: false },
              { id: 2, name: 'B' },
            ],
          },
        ],
      }),
    );
    await wh.loadSlice(
      sliceBatch({ writes: [{ table: 'competitors', mode: 'merge', rows: [{ id: 1, name: 'A', is_actual: true }] }] }),
    );
    expect(await wh.query(`SELECT id, is_actual FROM competitors ORDER BY id`)).toEqual([
      { id: 1, is_actual: true },
      { id: 2, is_actual: null },
    ]);
  });

  it("scopes a replace to the batch brand, so another brand's rows of the day stay", async () => {
    await wh.loadSlice(conversationsSlice('2026-11-20', [1, 2]));
    await wh.loadSlice(conversationsSlice('2026-11-20', [1], { brandId: 8 }));
    await wh.loadSlice(conversationsSlice('2026-11-20', [], { brandId: 8 }));
    expect(await wh.query(`SELECT brand_id, count(*) AS n FROM conversation_brands GROUP BY ALL ORDER BY 1`)).toEqual([
      { brand_id: 7, n: 4 },
    ]);
    expect(await wh.query(`SELECT brand_id, count(*) AS n FROM conversations GROUP BY ALL ORDER BY 1`)).toEqual([
      { brand_id: 7, n: 2 },
      { brand_id: 8, n: 1 },
    ]);
  });

  it('writes the slice state with the rows, and keeps completed_at of the last complete load', async () => {
    await wh.loadSlice(
      conversationsSlice('2026-11-20', [1, 2], { state: completeState({ rows: 2, totalRows: 2, requests: 3 }) }),
    );
    const [complete] = await wh.sliceStates({ stream: 'conversations' });
    expect(complete).toMatchObject({
      brandId: 7,
      sliceKey: '2026-11-20',
      day: '2026-11-20',
      status: 'complete',
      rows: 2,
      totalRows: 2,
      requests: 3,
    });
    await wh.loadSlice(
      sliceBatch({
        stream: 'conversations',
        sliceKey: '2026-11-20',
        day: '2026-11-20',
        writes: [],
        state: {
          status: 'failed',
          rows: 0,
          totalRows: null,
          attempts: 5,
          requests: 5,
          lastError: 'boom',
          errorCode: 'validation_error',
          requestId: 'req-1',
        },
      }),
    );
    const [failed] = await wh.sliceStates({ stream: 'conversations', status: ['failed'] });
    expect(failed).toMatchObject({
      status: 'failed',
      attempts: 5,
      lastError: 'boom',
      errorCode: 'validation_error',
      requestId: 'req-1',
      completedAt: complete!.completedAt,
    });
    expect(await wh.query(`SELECT count(*) AS n FROM conversations`)).toEqual([{ n: 2 }]);
    expect(await wh.sliceStates({ fromDay: '2026-11-21' })).toEqual([]);
  });

  it("reads a run's slice outcomes as sliceStates does, in four columns (finalize's light read)", async () => {
    await wh.loadSlice(conversationsSlice('2026-11-20', [1], { state: completeState({ rows: 1 }) }));
    const failed = { status: 'failed' as const, rows: 0, totalRows: null, attempts: 5, requests: 5, lastError: 'boom' };
    await wh.loadSlice(
      sliceBatch({ stream: 'conversations', sliceKey: '2026-11-21', day: '2026-11-21', writes: [], state: failed }),
    );
    await wh.loadSlice(conversationsSlice('2026-11-22', [2], { runId: 'run-2', state: completeState({ rows: 1 }) }));
    const outcomes = await wh.sliceOutcomes('run-1');
    expect(outcomes.map((o) => `${o.day} ${o.status}`).sort()).toEqual(['2026-11-20 complete', '2026-11-21 failed']);
    const states = await wh.sliceStates({ runId: 'run-1' });
    expect(outcomes).toEqual(
      expect.arrayContaining(states.map(({ brandId, stream, day, status }) => ({ brandId, stream, day, status }))),
    );
  });

  it("replaces a slice's rejects on re-load and sums the run counters", async () => {
    const reject = (n: number) => ({
      raw: { id: n, date: 'nope' },
      issues: ['date: Invalid ISO datetime'],
      source: `page ${n}`,
    });
    await wh.loadSlice(
      conversationsSlice('2026-11-20', [1], {
        rejects: [reject(1), reject(2)],
        state: completeState({ requests: 2, retries: 1, rateLimited: 1 }),
      }),
    );
    await wh.loadSlice(
      conversationsSlice('2026-11-20', [1], { rejects: [reject(3)], state: completeState({ requests: 1 }) }),
    );
    expect(await wh.query(`SELECT id, slice_key, raw->>'id' AS raw_id, issues FROM _rejected_records`)).toEqual([
      {
        id: '7/conversations/2026-11-20/0',
        slice_key: '2026-11-20',
        raw_id: '3',
        issues: ['date: Invalid ISO datetime'],
      },
    ]);
    // A failed fetch of the slice carries no rejects: those of the rows still loaded stay.
    await wh.loadSlice(
      sliceBatch({
        stream: 'conversations',
        sliceKey: '2026-11-20',
        writes: [],
        state: { ...completeState(), status: 'failed', lastError: 'timeout' },
      }),
    );
    expect(await wh.query(`SELECT count(*) AS n FROM _rejected_records`)).toEqual([{ n: 1 }]);
    await wh.startRun({
      runId: 'run-1',
      kind: 'backfill',
      brands: [7],
      streams: ['conversations'],
      windowStart: '2026-11-01',
      windowEnd: '2026-11-20',
    });
    await wh.finishRun('run-1', 'complete');
    const [run] = await wh.recentRuns();
    expect(run).toMatchObject({
      runId: 'run-1',
      kind: 'backfill',
      brands: [7],
      status: 'complete',
      slices: 3,
      requests: 4,
      rows: 6,
      rejects: 3,
      errors: 1,
      retries: 1,
      rateLimited: 1,
      windowEnd: '2026-11-20',
    });
    expect(run!.finishedAt).not.toBeNull();
  });

  it('moves a cursor forward only', async () => {
    expect((await wh.cursors()).has('7|conversations')).toBe(false);
    expect(await wh.advanceCursor(7, 'conversations', '2026-11-20', 'run-1')).toBe('2026-11-20');
    expect(await wh.advanceCursor(7, 'conversations', '2026-11-18', 'run-2')).toBe('2026-11-20');
    expect(await wh.advanceCursor(7, 'conversations', '2026-11-21', 'run-3')).toBe('2026-11-21');
    expect(await wh.query(`SELECT run_id FROM _sync_cursors`)).toEqual([{ run_id: 'run-3' }]);
  });

  it('refuses rows that do not fit, naming table and column, and changes nothing', async () => {
    await wh.loadSlice(conversationsSlice('2026-11-20', [1, 2]));
    const before = [await snapshot('conversations', 'id'), await wh.sliceStates()];
    const bad = (rows: Record<string, unknown>[], table = 'conversations') =>
      wh.loadSlice(
        sliceBatch({
          sliceKey: 'x',
          writes: [
            { table: 'tracked_urls', mode: 'merge', rows: [{ id: 1 }] },
            { table, mode: 'merge', rows: rows as never },
          ],
        }),
      );
    await expect(
      bad([{ id: 3, day: '2026-11-20', date: '2026-11-20T00:00:00Z', colour: 'red' }]),
    ).rejects.toMatchObject({
      code: 'unknown_column',
      message: expect.stringMatching(/conversations has no column "colour"/),
    });
    await expect(bad([{ id: 3, day: '20/11/2026', date: '2026-11-20T00:00:00Z' }])).rejects.toMatchObject({
      code: 'row_invalid',
      message: expect.stringMatching(/conversations\.day \(row 0\)/),
    });
    await expect(bad([{ id: 3, day: '2026-11-20', date: 'yesterday' }])).rejects.toMatchObject({ code: 'row_invalid' });
    await expect(bad([{ id: 'three' }])).rejects.toMatchObject({ code: 'row_invalid' });
    expect(await wh.query(`SELECT count(*) AS n FROM duckdb_tables() WHERE temporary`)).toEqual([{ n: 0 }]);
    await expect(bad([{ id: 3 }], 'no_such_table')).rejects.toMatchObject({ code: 'unknown_table' });
    await expect(
      bad(
        [{ brand_id: 7, stream: 's', slice_key: 'k', status: 'complete', updated_at: '2026-11-20T00:00:00Z' }],
        '_sync_state',
      ),
    ).rejects.toMatchObject({ code: 'unknown_table' });
    // A NOT NULL column left empty fails inside the transaction: the tracked URL written before it is rolled back.
    await expect(bad([{ id: 3 }])).rejects.toThrow(/NOT NULL/);
    await expect(
      wh.loadSlice(
        sliceBatch({
          writes: [
            {
              table: 'conversation_brands',
              mode: 'replace',
              scope: { day: '2026-11-20' },
              rows: [{ conversation_id: 1, ordinal: 0, day: '2026-11-21' }],
            },
          ],
        }),
      ),
    ).rejects.toMatchObject({ code: 'scope_invalid' });
    expect([await snapshot('conversations', 'id'), await wh.sliceStates()]).toEqual(before);
    expect(await wh.query(`SELECT count(*) AS n FROM tracked_urls`)).toEqual([{ n: 0 }]);
    // The warehouse is still usable after the failures.
    await wh.loadSlice(conversationsSlice('2026-11-21', [9]));
    expect(await wh.query(`SELECT count(*) AS n FROM conversations`)).toEqual([{ n: 3 }]);
  });

  it('serialises concurrent calls on its one connection', async () => {
    const days = ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04'];
    await Promise.all(days.map((day, i) => wh.loadSlice(conversationsSlice(day, [i * 10 + 1, i * 10 + 2]))));
    expect(await wh.query(`SELECT count(*) AS n FROM conversations`)).toEqual([{ n: 8 }]);
    expect((await wh.sliceStates()).map((s) => s.sliceKey)).toEqual(days);
  });
});
