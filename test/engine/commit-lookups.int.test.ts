import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { CommitLookups } from '../../src/engine/writer/commit-lookups.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../support/tmp.js';
import { conversationRows, sliceBatch } from '../warehouse/batches.js';

// The lookups of commit jobs prepared together (a job and the waiting commits it takes) reach DuckDB as one batch.

let tmp: ReturnType<typeof tempDir> | undefined;
let wh: Warehouse | undefined;
afterEach(async () => {
  await wh?.close();
  wh = undefined;
  tmp?.remove();
});

const DAY = '2026-11-20';

describe('commit lookups', () => {
  it('answers the lookups asked in one turn with one warehouse call, each its own slice and token', async () => {
    tmp = tempDir('commit-lookups');
    const opened = (wh = await openWarehouse(join(tmp.path, 'work.duckdb')));
    await opened.startRun({ runId: 'run-1', kind: 'backfill', brands: [7], streams: ['conversations'] });
    const rows = conversationRows(DAY, 2);
    await opened.loadSlice(
      sliceBatch({
        stream: 'conversations',
        sliceKey: DAY,
        day: DAY,
        token: 'fetch-1',
        writes: [{ table: 'conversations', mode: 'replace', scope: { brand_id: 7, day: DAY }, rows }],
      }),
    );
    const batches: number[] = [];
    const lookups = new CommitLookups({
      commitLookups: (slices) => (batches.push(slices.length), opened.commitLookups(slices)),
    });
    const slice = (sliceKey: string, token: string) => ({ brandId: 7, stream: 'conversations', sliceKey, token });
    const answers = await Promise.all([
      lookups.of(slice(DAY, 'fetch-1')),
      lookups.of(slice(DAY, 'fetch-2')),
      lookups.of(slice('2026-11-19', 'fetch-3')),
    ]);
    expect(batches).toEqual([3]);
    expect(answers.map((answer) => [answer.committed, answer.stored?.runId ?? null])).toEqual([
      [true, 'run-1'],
      [false, 'run-1'],
      [false, null],
    ]);
    // A later turn is a batch of its own.
    expect((await lookups.of(slice('2026-11-19', 'fetch-1'))).committed).toBe(true);
    expect(batches).toEqual([3, 1]);
  });

  it("fails every lookup of a batch with the warehouse's error", async () => {
    const lookups = new CommitLookups({ commitLookups: () => Promise.reject(new Error('database is closed')) });
    const asked = [
      lookups.of({ brandId: 7, stream: 's', sliceKey: 'a', token: 't1' }),
      lookups.of({ brandId: 7, stream: 's', sliceKey: 'b', token: 't2' }),
    ];
    for (const answer of asked) await expect(answer).rejects.toThrow('database is closed');
  });
});
