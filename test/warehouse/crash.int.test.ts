import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openReadOnly } from '../../src/warehouse/publish/published-database.js';
import { readRows } from '../../src/warehouse/read-rows.js';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../support/tmp.js';
import { completeState, conversationRows, sliceBatch } from './batches.js';
import { runScript } from './child-process.js';

let tmp: ReturnType<typeof tempDir>;
afterEach(() => tmp?.remove());

describe('a load killed inside its transaction', () => {
  it('leaves the previous slice, its state and the run counters as they were', async () => {
    tmp = tempDir('crash');
    const path = join(tmp.path, 'bv.work.duckdb');
    const day = '2026-11-20';
    const wh = await openWarehouse(path);
    await wh.loadSlice(
      sliceBatch({
        stream: 'conversations',
        sliceKey: day,
        day,
        writes: [
          { table: 'conversations', mode: 'merge', rows: conversationRows(day, 1000) },
          {
            table: 'conversation_brands',
            mode: 'replace',
            scope: { day },
            rows: [{ conversation_id: 1, ordinal: 0, day, name: 'Own' }],
          },
        ],
        state: completeState({ rows: 1000, totalRows: 1000 }),
      }),
    );
    await wh.close();

    const child = runScript('test/warehouse/fixtures/crash-child.ts', [path, day, '200000']);
    expect(await child.nextLine()).toBe('IN_TRANSACTION');
    child.child.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');

    const reopened = await openWarehouse(path);
    try {
      expect(
        await reopened.query(
          `SELECT count(*) AS n, count(*) FILTER (WHERE model = 'from-the-killed-load') AS killed FROM conversations`,
        ),
      ).toEqual([{ n: 1000, killed: 0 }]);
      expect(await reopened.query(`SELECT count(*) AS n FROM conversation_brands`)).toEqual([{ n: 1 }]);
      expect(await reopened.query(`SELECT count(*) AS n FROM _rejected_records`)).toEqual([{ n: 0 }]);
      expect(await reopened.sliceStates()).toMatchObject([{ sliceKey: day, rows: 1000, runId: 'run-1' }]);
      expect(await reopened.query(`SELECT run_id, slices FROM _sync_runs`)).toEqual([{ run_id: 'run-1', slices: 1 }]);
      // And the file takes the next load normally.
      await reopened.loadSlice(
        sliceBatch({
          stream: 'conversations',
          sliceKey: day,
          day,
          writes: [{ table: 'conversations', mode: 'merge', rows: conversationRows(day, 5, 5000) }],
        }),
      );
      expect(await reopened.query(`SELECT count(*) AS n FROM conversations`)).toEqual([{ n: 1005 }]);
    } finally {
      await reopened.close();
    }
  });
});

describe('a publish killed while it writes the copy', () => {
  it('leaves the published file whole and as it was; the next publish clears the debris', async () => {
    tmp = tempDir('crash-publish');
    const working = join(tmp.path, 'bv.work.duckdb');
    const published = join(tmp.path, 'bv.duckdb');
    const wh = await openWarehouse(working);
    await wh.loadSlice(
      sliceBatch({ writes: [{ table: 'conversations', mode: 'merge', rows: conversationRows('2026-11-20', 100) }] }),
    );
    await wh.publish(published);
    await wh.close();

    const child = runScript('test/warehouse/fixtures/publish-child.ts', [working, published, '300000']);
    expect(await child.nextLine()).toBe('PUBLISHING');
    const copyStarted = Date.now();
    while (
      !readdirSync(tmp.path).some((name) => name.startsWith('bv.duckdb.tmp-')) &&
      Date.now() - copyStarted < 10_000
    ) {
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    child.child.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');
    // Killed mid-copy: the copy's debris is there, and the analysts' file is untouched.
    expect(readdirSync(tmp.path).some((name) => name.startsWith('bv.duckdb.tmp-'))).toBe(true);

    const countPublished = async () => {
      const database = await openReadOnly(published);
      try {
        return (await readRows(database.connection, 'SELECT count(*) AS n FROM conversations'))[0]!.n;
      } finally {
        database.close();
      }
    };
    expect(await countPublished()).toBe(100);

    const reopened = await openWarehouse(working);
    await reopened.publish(published);
    await reopened.close();
    expect(await countPublished()).toBe(300_100);
    expect(readdirSync(tmp.path).filter((name) => name.startsWith('bv.duckdb'))).toEqual(['bv.duckdb']);
  });
});
