import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
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
          { table: 'conversation_brands', mode: 'replace', scope: { day }, rows: [{ conversation_id: 1, ordinal: 0, day, name: 'Own' }] },
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
      expect(await reopened.query(`SELECT count(*) AS n, count(*) FILTER (WHERE model = 'from-the-killed-load') AS killed FROM conversations`)).toEqual([
        { n: 1000, killed: 0 },
      ]);
      expect(await reopened.query(`SELECT count(*) AS n FROM conversation_brands`)).toEqual([{ n: 1 }]);
      expect(await reopened.query(`SELECT count(*) AS n FROM _rejected_records`)).toEqual([{ n: 0 }]);
      expect(await reopened.sliceStates()).toMatchObject([{ sliceKey: day, rows: 1000, runId: 'run-1' }]);
      expect(await reopened.query(`SELECT run_id, slices FROM _sync_runs`)).toEqual([{ run_id: 'run-1', slices: 1 }]);
      // And the file takes the next load normally.
      await reopened.loadSlice(sliceBatch({ stream: 'conversations', sliceKey: day, day, writes: [{ table: 'conversations', mode: 'merge', rows: conversationRows(day, 5, 5000) }] }));
      expect(await reopened.query(`SELECT count(*) AS n FROM conversations`)).toEqual([{ n: 1005 }]);
    } finally {
      await reopened.close();
    }
  });
});
