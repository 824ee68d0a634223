import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import type { SliceBatch } from '../../src/warehouse/load/slice-batch.js';
import { tempDir } from '../support/tmp.js';
import { completeState, conversationRows, sliceBatch } from './batches.js';

// Slices loaded together in one transaction must leave exactly what loading them one after the other leaves: the
// same rows, states, rejects and run counters. Each case loads the same batches both ways into two files.

let tmp: ReturnType<typeof tempDir>;
let together: Warehouse;
let alone: Warehouse;

beforeEach(async () => {
  tmp = tempDir('slice-batches');
  together = await openWarehouse(join(tmp.path, 'together.work.duckdb'));
  alone = await openWarehouse(join(tmp.path, 'alone.work.duckdb'));
});
afterEach(async () => {
  await together.close();
  await alone.close();
  tmp.remove();
});

/** A conversations slice of one day: conversations merged by key, their brands replaced for the day. */
function daySlice(day: string, ids: number[], overrides: Partial<SliceBatch> = {}): SliceBatch {
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
        rows: ids.map((id) => ({
          conversation_id: id,
          ordinal: 0,
          day,
          name: `Brand ${id}`,
          is_own_brand: true,
          position: 1,
        })),
      },
    ],
    state: completeState({ rows: ids.length, totalRows: ids.length, requests: 2, retries: 1 }),
    ...overrides,
  });
}

/** Everything a load leaves, minus the times it was written at and the journal's numbers. */
async function contents(wh: Warehouse): Promise<unknown> {
  return {
    conversations: await wh.query('SELECT * EXCLUDE (_synced_at) FROM conversations ORDER BY brand_id, id'),
    brands: await wh.query(
      'SELECT * EXCLUDE (_synced_at) FROM conversation_brands ORDER BY brand_id, day, conversation_id, ordinal',
    ),
    state: await wh.query(
      'SELECT * EXCLUDE (completed_at, updated_at, last_attempt_at) FROM _sync_state ORDER BY brand_id, stream, slice_key',
    ),
    rejects: await wh.query('SELECT * EXCLUDE (rejected_at) FROM _rejected_records ORDER BY id'),
    runs: await wh.query(
      'SELECT run_id, slices, requests, "rows", rejects, errors, retries, rate_limited FROM _sync_runs ORDER BY run_id',
    ),
    // What the next publish re-copies: every slice's writes, journaled in its order.
    journal: await wh.query('SELECT table_name, mode, brand_id, scope, run_id FROM _publish_journal ORDER BY seq'),
  };
}

async function loadBothWays(batches: SliceBatch[]): Promise<void> {
  const results = await together.loadSlices(batches);
  expect(results.map((result) => result.sliceKey)).toEqual(batches.map((batch) => batch.sliceKey));
  for (const batch of batches) await alone.loadSlice(batch);
}

describe('loading several slices in one transaction', () => {
  it('leaves the rows, states, rejects and run counters that loading them one by one leaves', async () => {
    const reject = { raw: { id: 'x' }, issues: ['id: Expected number'], source: 'GET /conversations page 1' };
    const batches = [
      daySlice('2026-11-18', [1, 2, 3]),
      daySlice('2026-11-19', [4, 5], {
        rejects: [reject],
        state: completeState({ status: 'incomplete', rows: 2, totalRows: 3, requests: 1 }),
      }),
      daySlice('2026-11-20', [6], { brandId: 8, runId: 'run-2' }),
      daySlice('2026-11-20', [6, 7]),
    ];
    await loadBothWays(batches);
    const loaded = await contents(together);
    expect(loaded).toEqual(await contents(alone));
    // Three writes a slice: its two tables and its rejects.
    expect((loaded as { journal: unknown[] }).journal).toHaveLength(batches.length * 3);
    expect((loaded as { runs: unknown[] }).runs).toEqual([
      { run_id: 'run-1', slices: 3, requests: 5, rows: 14, rejects: 1, errors: 0, retries: 2, rate_limited: 0 },
      { run_id: 'run-2', slices: 1, requests: 2, rows: 2, rejects: 0, errors: 0, retries: 1, rate_limited: 0 },
    ]);
  });

  it('lets a later slice win a key two of them merge, as loading them in order does', async () => {
    // The same conversation id, answered again on the next day's slice: the later slice's row is the one kept.
    const mergesOnly = (batch: SliceBatch): SliceBatch => ({
      ...batch,
      writes: batch.writes.filter((write) => write.mode === 'merge'),
    });
    const first = mergesOnly(daySlice('2026-11-19', [1, 2]));
    const second = mergesOnly(daySlice('2026-11-20', [2, 3]));
    await loadBothWays([first, second]);
    expect(await contents(together)).toEqual(await contents(alone));
    expect(await together.query('SELECT id, "day"::VARCHAR AS day FROM conversations ORDER BY id')).toEqual([
      { id: 1, day: '2026-11-19' },
      { id: 2, day: '2026-11-20' },
      { id: 3, day: '2026-11-20' },
    ]);
  });

  it('applies replaces whose scopes overlap one after the other, so the later one deletes what the earlier wrote', async () => {
    // Two slices of different streams writing the same table over the same day: the second's scope holds the first's
    // rows, so they cannot share one insert.
    const first = daySlice('2026-11-20', [1, 2], { stream: 'first' });
    const second = daySlice('2026-11-20', [3], { stream: 'second' });
    await loadBothWays([first, second]);
    expect(await contents(together)).toEqual(await contents(alone));
    expect(await together.query('SELECT conversation_id FROM conversation_brands ORDER BY 1')).toEqual([
      { conversation_id: 3 },
    ]);
  });

  it('records an attempt beside a better state among slices it loads', async () => {
    const day = daySlice('2026-11-20', [1]);
    await together.loadSlice(day);
    await alone.loadSlice(day);
    const attempt = sliceBatch({
      stream: 'conversations',
      sliceKey: '2026-11-20',
      day: '2026-11-20',
      writes: [],
      attemptOnly: true,
      runId: 'run-2',
      state: completeState({ status: 'failed', lastError: 'HTTP 500', errorCode: 'server_error' }),
    });
    await loadBothWays([daySlice('2026-11-19', [2], { runId: 'run-2' }), attempt]);
    expect(await contents(together)).toEqual(await contents(alone));
    expect(
      await together.query(
        `SELECT status, last_attempt_status, last_attempt_error FROM _sync_state WHERE slice_key = '2026-11-20'`,
      ),
    ).toEqual([{ status: 'complete', last_attempt_status: 'failed', last_attempt_error: 'HTTP 500' }]);
  });

  it('rolls every slice back when one fails, naming the bad value', async () => {
    const bad = daySlice('2026-11-20', [2]);
    (bad.writes[0]!.rows[0] as Record<string, unknown>).position = 'first';
    await expect(together.loadSlices([daySlice('2026-11-19', [1]), bad])).rejects.toThrow(
      /conversations\.position \(row 0\)/,
    );
    expect(await together.query('SELECT count(*)::INTEGER AS n FROM conversations')).toEqual([{ n: 0 }]);
    expect(await together.query('SELECT count(*)::INTEGER AS n FROM _sync_state')).toEqual([{ n: 0 }]);
    // Nothing half-done stays behind: the same connection loads the good slice afterwards.
    await together.loadSlices([daySlice('2026-11-19', [1])]);
    expect(await together.query('SELECT count(*)::INTEGER AS n FROM conversations')).toEqual([{ n: 1 }]);
  });

  it('deletes the scopes of replaces over earlier rows together, lists and empty writes included, counting each', async () => {
    const first = [daySlice('2026-11-18', [1, 2, 3]), daySlice('2026-11-19', [4, 5]), daySlice('2026-11-20', [6])];
    await loadBothWays(first);
    // A window slice clearing two days (no rows), a day reloaded smaller, and a day never loaded: deleteScopes' cases.
    const clear = sliceBatch({
      stream: 'window',
      sliceKey: 'w',
      writes: [
        { table: 'conversation_brands', mode: 'replace', scope: { day: ['2026-11-19', '2026-11-20'] }, rows: [] },
      ],
    });
    const second = [daySlice('2026-11-18', [1]), clear, daySlice('2026-11-21', [7])];
    const results = await together.loadSlices(second);
    const one = [];
    for (const batch of second) one.push(await alone.loadSlice(batch));
    const deleted = (of: typeof results) =>
      of.map((result) => result.tables.filter((t) => t.mode === 'replace').map((t) => `${t.table}:${t.deleted}`));
    expect(deleted(results)).toEqual(deleted(one));
    expect(deleted(results).map((tables) => tables.find((t) => t.startsWith('conversation_brands')))).toEqual([
      'conversation_brands:3',
      'conversation_brands:3',
      'conversation_brands:0',
    ]);
    expect(await contents(together)).toEqual(await contents(alone));
    expect(await together.query('SELECT conversation_id FROM conversation_brands ORDER BY 1')).toEqual([
      { conversation_id: 1 },
      { conversation_id: 7 },
    ]);
  });

  it('refuses the same slice twice in one load', async () => {
    await expect(together.loadSlices([daySlice('2026-11-20', [1]), daySlice('2026-11-20', [2])])).rejects.toThrow(
      /appears twice in one load/,
    );
  });
});
