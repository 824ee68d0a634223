import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openReadOnly } from '../../src/warehouse/publish/published-database.js';
import { SLICE_COMMITS_KEPT_DAYS, SLICE_COMMITS_TABLE } from '../../src/warehouse/load/slice-commits.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../support/tmp.js';
import { conversationRows, sliceBatch } from './batches.js';

/**
 * The ledger of committed fetches (src/warehouse/load/slice-commits.ts): written in the slice's transaction, told by
 * token, kept SLICE_COMMITS_KEPT_DAYS, and never in the analysts' copy.
 */

let tmp: ReturnType<typeof tempDir>;
let wh: Warehouse | undefined;
afterEach(async () => {
  await wh?.close();
  wh = undefined;
  tmp?.remove();
});

const DAY = '2026-11-20';

function conversationsOf(token: string | undefined, sliceKey = DAY) {
  return sliceBatch({
    stream: 'conversations',
    sliceKey,
    day: DAY,
    token,
    writes: [
      { table: 'conversations', mode: 'replace', scope: { brand_id: 7, day: DAY }, rows: conversationRows(DAY, 3) },
    ],
  });
}

describe('the ledger of committed fetches', () => {
  it('knows a token once its slice committed, and not before or when the load failed', async () => {
    tmp = tempDir('slice-commits');
    wh = await openWarehouse(join(tmp.path, 'work.duckdb'));
    await wh.startRun({ runId: 'run-1', kind: 'backfill', brands: [7], streams: ['conversations'] });
    expect(await wh.hasCommitted('fetch-a')).toBe(false);
    await wh.loadSlice(conversationsOf('fetch-a'));
    expect(await wh.hasCommitted('fetch-a')).toBe(true);
    // A slice whose transaction rolls back records nothing.
    const broken = sliceBatch({
      ...conversationsOf('fetch-b'),
      writes: [{ table: 'no_such_table', mode: 'merge', rows: [{ id: 1 }] }],
    });
    await expect(wh.loadSlice(broken)).rejects.toThrow();
    expect(await wh.hasCommitted('fetch-b')).toBe(false);
    // Slices committed together each record theirs; a batch without a token (tests, tools) records nothing.
    await wh.loadSlices([
      conversationsOf('fetch-c', `${DAY}/c`),
      conversationsOf('fetch-d', `${DAY}/d`),
      conversationsOf(undefined, `${DAY}/e`),
    ]);
    expect([await wh.hasCommitted('fetch-c'), await wh.hasCommitted('fetch-d')]).toEqual([true, true]);
    expect(await wh.query(`SELECT count(*)::INTEGER AS n FROM ${SLICE_COMMITS_TABLE}`)).toEqual([{ n: 3 }]);
  });

  it('tells a batch of slices which tokens committed and their stored states, the tokens through their index', async () => {
    tmp = tempDir('slice-commits');
    wh = await openWarehouse(join(tmp.path, 'work.duckdb'));
    await wh.startRun({ runId: 'run-1', kind: 'backfill', brands: [7], streams: ['conversations'] });
    await wh.loadSlices([conversationsOf('fetch-a', `${DAY}/a`), conversationsOf('fetch-b', `${DAY}/b`)]);
    const asked = ['fetch-a', 'fetch-c', 'fetch-b'].map((token, i) => ({
      brandId: 7,
      stream: 'conversations',
      sliceKey: `${DAY}/${'acb'[i]}`,
      token,
    }));
    const { committed, states } = await wh.commitLookups(asked);
    expect([...committed].sort()).toEqual(['fetch-a', 'fetch-b']);
    expect([...states.keys()].sort()).toEqual([`7|conversations|${DAY}/a`, `7|conversations|${DAY}/b`]);
    expect(states.get(`7|conversations|${DAY}/a`)).toEqual({
      status: 'complete',
      rows: 0,
      runId: 'run-1',
      attemptRunId: 'run-1',
    });
    // DuckDB answers `token IN (...)` from the index, so the check does not read the whole ledger as it grows.
    const plan = await wh.query(
      `EXPLAIN ANALYZE SELECT DISTINCT token FROM ${SLICE_COMMITS_TABLE} WHERE token IN ('fetch-a', 'fetch-c')`,
    );
    expect(JSON.stringify(plan)).toMatch(/Index Scan/);
  });

  it(`keeps tokens ${SLICE_COMMITS_KEPT_DAYS} days, pruned as a run finishes, and stays out of the published copy`, async () => {
    tmp = tempDir('slice-commits');
    wh = await openWarehouse(join(tmp.path, 'work.duckdb'));
    await wh.startRun({ runId: 'run-1', kind: 'backfill', brands: [7], streams: ['conversations'] });
    await wh.loadSlice(conversationsOf('fetch-recent'));
    await wh.loadSlice(conversationsOf('fetch-old', `${DAY}/old`));
    await wh.query(
      `UPDATE ${SLICE_COMMITS_TABLE} SET committed_at = now() - INTERVAL ${SLICE_COMMITS_KEPT_DAYS + 1} DAY WHERE token = 'fetch-old'`,
    );
    await wh.finishRun('run-1', 'complete');
    expect([await wh.hasCommitted('fetch-recent'), await wh.hasCommitted('fetch-old')]).toEqual([true, false]);

    const published = join(tmp.path, 'bv.duckdb');
    await wh.publish(published);
    await wh.loadSlice(conversationsOf('fetch-later', `${DAY}/later`));
    const { mode } = await wh.publish(published);
    expect(mode).toBe('incremental');
    const db = await openReadOnly(published);
    try {
      const tables = await db.connection.runAndReadAll(
        `SELECT count(*) FROM duckdb_tables() WHERE table_name = '${SLICE_COMMITS_TABLE}'`,
      );
      expect(Number(tables.getRowsJS()[0]![0])).toBe(0);
    } finally {
      db.close();
    }
  });
});
