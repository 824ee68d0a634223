import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ReopenTrigger } from '../../src/warehouse/file/memory-release.js';
import { openWarehouse, type Reopen, type Warehouse } from '../../src/warehouse/warehouse.js';
import { DEFAULT_STREAM_NAMES } from '../../src/streams/stream-names.js';
import { engineFixture, runInProcess, tableDifferences, type EngineFixture } from '../support/engine.js';
import { tempDir } from '../support/tmp.js';
import { conversationRows, sliceBatch } from './batches.js';

/**
 * The writer reopens DuckDB to hand back the memory it kept (src/warehouse/file/memory-release.ts). A reopen between two
 * calls must lose nothing: every test here reopens after every load (threshold 1 byte, nothing to free required).
 */

function everyLoad(): ReopenTrigger {
  return new ReopenTrigger(1, 0);
}

function day(n: number): string {
  return `2026-11-${String(10 + n).padStart(2, '0')}`;
}

function slice(n: number) {
  return sliceBatch({
    stream: 'conversations',
    sliceKey: day(n),
    day: day(n),
    writes: [{ table: 'conversations', mode: 'merge', rows: conversationRows(day(n), 50, n * 100) }],
  });
}

describe('a warehouse that reopens DuckDB after each load', () => {
  let tmp: ReturnType<typeof tempDir>;
  let wh: Warehouse;
  let reopens: Reopen[];

  beforeEach(async () => {
    tmp = tempDir('memory-release');
    reopens = [];
    wh = await openWarehouse(join(tmp.path, 'bv.work.duckdb'), {
      reopen: everyLoad(),
      onReopen: (reopen) => reopens.push(reopen),
    });
  });
  afterEach(async () => {
    await wh.close();
    tmp.remove();
  });

  it('keeps every slice loaded before, in the file and in the next open', async () => {
    await wh.loadSlice(slice(1));
    await wh.loadSlices([slice(2), slice(3)]);
    await wh.loadSlice(slice(4));
    expect(reopens).toHaveLength(3);
    expect(reopens.every((reopen) => reopen.afterMb > 0 && reopen.ms >= 0)).toBe(true);
    const count = async (w: Warehouse) => Number((await w.query('SELECT count(*) AS n FROM conversations'))[0]!.n);
    expect(await count(wh)).toBe(200);
    expect(await wh.sliceStates()).toHaveLength(4);
    await wh.close();
    wh = await openWarehouse(join(tmp.path, 'bv.work.duckdb'));
    expect(await count(wh)).toBe(200);
  });

  it('gives up a reopen when a read connection is asked for as it begins, and the read gets the open instance', async () => {
    let read: Promise<number> | undefined;
    let loaded: () => void = () => undefined;
    const afterLoad = new Promise<void>((resolve) => (loaded = resolve));
    const asksToRead = new (class extends ReopenTrigger {
      override due(residentBytes: number): boolean {
        // Connected now, queried only once the load (and the reopen it gave up) is over.
        read ??= wh.withReadConnection(async (connection) => {
          await afterLoad;
          const result = await connection.runAndReadAll('SELECT count(*)::INTEGER AS n FROM conversations');
          return Number(result.getRowObjects()[0]!.n);
        });
        return super.due(residentBytes);
      }
    })(1, 0);
    await wh.close();
    wh = await openWarehouse(join(tmp.path, 'bv.work.duckdb'), {
      reopen: asksToRead,
      onReopen: (reopen) => reopens.push(reopen),
    });
    await wh.loadSlice(slice(1));
    loaded();
    expect(await read).toBe(50);
    expect(reopens).toHaveLength(0);
    await wh.loadSlice(slice(2));
    expect(reopens).toHaveLength(1);
  });

  it('does not reopen under a read connection, and does at the next load after it closed', async () => {
    await wh.withReadConnection(async () => {
      await wh.loadSlice(slice(1));
    });
    expect(reopens).toHaveLength(0);
    await wh.loadSlice(slice(2));
    expect(reopens).toHaveLength(1);
  });
});

describe('a backfill whose writer reopens DuckDB after every load', () => {
  const TODAY = '2026-11-20';
  const SIM = { brands: 1, days: 3, scale: 10, today: TODAY };
  let plain: EngineFixture;
  let reopening: EngineFixture;

  beforeAll(async () => {
    plain = await engineFixture('memory-release-plain', { sim: SIM });
    reopening = await engineFixture('memory-release-reopening', { sim: SIM });
  });
  afterAll(async () => {
    await plain?.cleanup();
    await reopening?.cleanup();
  });

  it('loads and publishes the same tables as one that never reopens', async () => {
    const options = {
      kind: 'backfill' as const,
      today: TODAY,
      from: '2026-11-19',
      to: TODAY,
      streams: [...DEFAULT_STREAM_NAMES],
    };
    const reopens: Reopen[] = [];
    const plainRun = await runInProcess(plain, options);
    const reopeningRun = await runInProcess(reopening, {
      ...options,
      worker: { warehouse: { reopen: everyLoad(), onReopen: (reopen) => reopens.push(reopen) } },
    });
    expect(plainRun.meta.status).toBe('complete');
    expect(reopeningRun.meta.status).toBe('complete');
    expect(reopens.length).toBeGreaterThan(1);
    expect(await tableDifferences(plain.config.db, reopening.config.db)).toEqual([]);
  });
});
