import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { SLICES_SHOWN, freshnessTable, slicesNotCompleteTable } from '../../src/warehouse/state/bookkeeping.js';
import { openReadOnly } from '../../src/warehouse/publish/published-database.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import type { SliceStatus } from '../../src/vocabulary.js';
import { tempDir } from '../support/tmp.js';
import { parseConfig } from '../../src/configuration.js';
import { eachDay } from '../../src/days.js';
import { getStream } from '../../src/streams/registry.js';
import { completeState, sliceBatch } from './batches.js';

let tmp: ReturnType<typeof tempDir>;
let wh: Warehouse;

beforeEach(async () => {
  tmp = tempDir('bookkeeping');
  wh = await openWarehouse(join(tmp.path, 'bv.work.duckdb'));
});
afterEach(async () => {
  await wh.close();
  tmp.remove();
});

/** The key of a stream's first slice over `days`, as the stream plans it: the loads must hold the keys a run writes. */
function plannedKey(stream: string, days: string[]): string {
  const sync = parseConfig({ sync: { swotStatementIds: { 7: [5] } } }).sync;
  const dimensions = {
    domains: ['a.example'],
    topicIds: [1],
    pages: ['https://a.example/archive/2024-01-01..2024-01-31/p'],
    engines: ['chatgpt'],
  };
  return getStream(stream).slices({ brandId: 7, days, sync, dimensions })[0]!.key;
}

/** The state of one day's slice of a stream, with no rows: the bookkeeping questions read states alone. */
async function loadDay(stream: string, day: string, status: SliceStatus, runId = 'run-1'): Promise<void> {
  await wh.loadSlice(sliceBatch({ runId, stream, sliceKey: day, day, writes: [], state: completeState({ status }) }));
}

describe('warehouse bookkeeping', () => {
  it('counts freshness in complete past days: today is partial even when its slice reads complete', async () => {
    await loadDay('conversations', '2026-11-18', 'complete');
    await loadDay('conversations', '2026-11-19', 'complete');
    await loadDay('conversations', '2026-11-20', 'complete');
    await loadDay('visibility', '2026-11-19', 'failed');
    await loadDay('visibility', '2026-11-18', 'complete');
    expect(await wh.newestCompletePastDays('2026-11-20')).toEqual([
      { brand: 7, stream: 'conversations', newestCompleteDay: '2026-11-19' },
      { brand: 7, stream: 'visibility', newestCompleteDay: '2026-11-18' },
    ]);
    expect((await wh.newestCompletePastDays('2026-11-21'))[0]!.newestCompleteDay).toBe('2026-11-20');
  });

  it('gives every kind of slice a freshness: windows up to their last past day, lists the day before their read', async () => {
    const load = (stream: string, days: string[], status: SliceStatus) =>
      wh.loadSlice(
        sliceBatch({ stream, sliceKey: plannedKey(stream, days), writes: [], state: completeState({ status }) }),
      );
    await load('citations', eachDay('2026-11-01', '2026-11-15'), 'complete');
    await load('citations', eachDay('2026-11-06', '2026-11-20'), 'complete');
    await load('swot', eachDay('2026-11-06', '2026-11-18'), 'complete');
    await load('fanouts_cited', eachDay('2026-11-06', '2026-11-20'), 'failed');
    await load('cited_page_fanouts', eachDay('2026-11-06', '2026-11-17'), 'complete');
    await load('competitors', [], 'complete');
    await load('templates', [], 'failed');
    // A window that ends today holds no later past day than yesterday; a list read complete holds what was true then.
    expect(await wh.newestCompletePastDays('2026-11-20')).toEqual([
      { brand: 7, stream: 'citations', newestCompleteDay: '2026-11-19' },
      { brand: 7, stream: 'cited_page_fanouts', newestCompleteDay: '2026-11-17' },
      { brand: 7, stream: 'competitors', newestCompleteDay: '2026-11-19' },
      { brand: 7, stream: 'fanouts_cited', newestCompleteDay: null },
      { brand: 7, stream: 'swot', newestCompleteDay: '2026-11-18' },
      { brand: 7, stream: 'templates', newestCompleteDay: null },
    ]);
    // Asked from a later today, a list is as fresh as the day before it was read, by the real clock (UTC); a window
    // as fresh as its last day, whatever its key holds after it (citations' `/all`).
    const readDay = new Date().toISOString().slice(0, 10);
    const dayBefore = new Date(Date.parse(`${readDay}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const later = await wh.newestCompletePastDays('2099-01-01');
    expect(later.find((row) => row.stream === 'competitors')!.newestCompleteDay).toBe(dayBefore);
    expect(later.find((row) => row.stream === 'citations')!.newestCompleteDay).toBe('2026-11-20');
    expect(later.find((row) => row.stream === 'swot')!.newestCompleteDay).toBe('2026-11-18');
  });

  it("shows beside each stream's freshness the records its slices set aside: a complete slice may hold fewer than the API has", async () => {
    const rejected = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        raw: { id: `x${i}` },
        issues: ['id: expected number'],
        source: 'GET /x',
      }));
    await wh.loadSlice(
      sliceBatch({
        stream: 'conversations',
        sliceKey: '2026-11-18',
        day: '2026-11-18',
        writes: [],
        rejects: rejected(3),
      }),
    );
    await wh.loadSlice(
      sliceBatch({
        stream: 'conversations',
        sliceKey: '2026-11-19',
        day: '2026-11-19',
        writes: [],
        rejects: rejected(2),
      }),
    );
    await wh.loadSlice(sliceBatch({ stream: 'visibility', sliceKey: '2026-11-19', day: '2026-11-19', writes: [] }));
    const published = join(tmp.path, 'bv.duckdb');
    await wh.publish(published);
    const db = await openReadOnly(published);
    try {
      const rows = (await freshnessTable(db.connection, '2026-11-20')).getRowObjectsJS();
      expect(rows.map((row) => [row.stream, row.newest_complete_day, row.rejected])).toEqual([
        ['conversations', '2026-11-19', 5],
        ['visibility', '2026-11-19', 0],
      ]);
    } finally {
      db.close();
    }
  });

  it('lists failed slices before the latest incomplete ones, and counts them all', async () => {
    // Two failed slices loaded first, then more incomplete ones than status lists: by time alone the failed were hidden.
    await loadDay('visibility', '2026-01-01', 'failed');
    await loadDay('visibility', '2026-01-02', 'failed');
    for (let day = 1; day <= SLICES_SHOWN + 5; day++)
      await loadDay('citations', `2026-03-${String(day % 28 || 28).padStart(2, '0')}/${day}`, 'incomplete');
    await loadDay('conversations', '2026-01-03', 'complete');
    const published = join(tmp.path, 'bv.duckdb');
    await wh.publish(published);
    const db = await openReadOnly(published);
    try {
      const { table, total } = await slicesNotCompleteTable(db.connection);
      expect(total).toBe(SLICES_SHOWN + 7);
      const rows = table.getRowObjectsJS();
      expect(rows).toHaveLength(SLICES_SHOWN);
      expect(rows.slice(0, 2).map((row) => [row.stream, row.status])).toEqual([
        ['visibility', 'failed'],
        ['visibility', 'failed'],
      ]);
    } finally {
      db.close();
    }
  });

  it("tells which days of a window are complete, and a slice's stored state", async () => {
    await loadDay('conversations', '2026-11-18', 'complete');
    await loadDay('conversations', '2026-11-19', 'incomplete', 'run-2');
    const days = await wh.completeDays(7, 'conversations', '2026-11-17', '2026-11-19');
    expect(days.sort((a, b) => a.day.localeCompare(b.day))).toEqual([
      { day: '2026-11-18', complete: true },
      { day: '2026-11-19', complete: false },
    ]);
    expect(await wh.storedSliceState(7, 'conversations', '2026-11-19')).toEqual({
      status: 'incomplete',
      rows: 0,
      runId: 'run-2',
      attemptRunId: 'run-2',
    });
    expect(await wh.storedSliceState(7, 'conversations', '2026-11-20')).toBeUndefined();
  });

  it('keeps the settings each day was read with, finds the days of a setting before a day, and a failed load keeps them', async () => {
    const settings = (wire: string) => JSON.stringify({ names: { start_date: wire } });
    const loadRead = (day: string, readWith: string | undefined, status: SliceStatus = 'complete', runId = 'run-1') =>
      wh.loadSlice(
        sliceBatch({
          runId,
          stream: 'tracked_urls',
          sliceKey: day,
          day,
          writes: [],
          state: completeState({ status }),
          ...(readWith ? { readWith } : {}),
        }),
      );
    await loadRead('2026-11-13', settings('start_date'));
    await loadRead('2026-11-14', settings('start_date'));
    await loadRead('2026-11-15', settings('since'));
    await loadRead('2026-11-16', undefined);
    expect(await wh.readSettingsInUse()).toEqual([
      { stream: 'tracked_urls', readWith: settings('since') },
      { stream: 'tracked_urls', readWith: settings('start_date') },
    ]);
    expect(await wh.daysReadWith(7, 'tracked_urls', '2026-11-16', [settings('start_date')])).toEqual([
      { readWith: settings('start_date'), first: '2026-11-13', last: '2026-11-14', days: 2 },
    ]);
    expect(await wh.daysReadWith(7, 'tracked_urls', '2026-11-14', [settings('start_date')])).toEqual([
      { readWith: settings('start_date'), first: '2026-11-13', last: '2026-11-13', days: 1 },
    ]);
    // A failed read of a slice that held nothing complete loads its state, and leaves the settings of the rows it holds.
    await loadRead('2026-11-15', undefined, 'incomplete', 'run-2');
    await loadRead('2026-11-15', undefined, 'failed', 'run-3');
    expect((await wh.query(`SELECT status, read_with FROM _sync_state WHERE slice_key = '2026-11-15'`))[0]).toEqual({
      status: 'failed',
      read_with: null,
    });
    await loadRead('2026-11-16', settings('until'), 'incomplete', 'run-4');
    await loadRead('2026-11-16', undefined, 'failed', 'run-5');
    expect((await wh.query(`SELECT status, read_with FROM _sync_state WHERE slice_key = '2026-11-16'`))[0]).toEqual({
      status: 'failed',
      read_with: settings('until'),
    });
  });

  it('does not take a day read complete while it was still today for a complete day: its answers kept arriving', async () => {
    const today = new Date().toISOString().slice(0, 10);
    await loadDay('conversations', today, 'complete');
    expect(await wh.completeDays(7, 'conversations', today, today)).toEqual([{ day: today, complete: false }]);
  });

  it('knows a run once its plan started or a slice loaded under it, so cancel records a run it never planned', async () => {
    expect(await wh.hasRun('run-1')).toBe(false);
    await wh.startRun({ runId: 'run-1', kind: 'backfill', brands: [7], streams: ['conversations'] });
    expect(await wh.hasRun('run-1')).toBe(true);
    await loadDay('conversations', '2026-11-18', 'complete', 'run-2');
    expect(await wh.hasRun('run-2')).toBe(true);
    expect(await wh.hasRun('run-3')).toBe(false);
  });
});
