import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { workingPathFor } from '../../src/warehouse/paths.js';
import { tempDir } from '../support/tmp.js';
import { conversationRows, sliceBatch } from './batches.js';
import { runScript } from './child-process.js';

let tmp: ReturnType<typeof tempDir>;
afterEach(() => tmp?.remove());

async function countPublished(path: string): Promise<number> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll('SELECT count(*) FROM conversations');
    connection.closeSync();
    return Number(reader.getRowsJS()[0]![0]);
  } finally {
    instance.closeSync();
  }
}

const load = (day: string, n: number, firstId: number) =>
  sliceBatch({
    stream: 'conversations',
    sliceKey: day,
    day,
    writes: [{ table: 'conversations', mode: 'merge', rows: conversationRows(day, n, firstId) }],
  });

describe('publishing', () => {
  it('puts the working file beside the published one', () => {
    expect(workingPathFor('data/bv.duckdb')).toBe(join('data', 'bv.work.duckdb'));
    expect(workingPathFor('/srv/warehouse')).toBe('/srv/warehouse.work.duckdb');
  });

  it('neither blocks nor breaks an analyst holding the published file open, who sees the new data on the next open', async () => {
    tmp = tempDir('publish');
    const published = join(tmp.path, 'bv.duckdb');
    const wh = await openWarehouse(workingPathFor(published));
    try {
      await wh.loadSlice(load('2026-11-19', 10, 1));
      const first = await wh.publish(published);
      expect(first.views.length).toBeGreaterThan(0);

      const reader = runScript('test/warehouse/fixtures/reader-child.ts', [published]);
      expect(JSON.parse(await reader.nextLine())).toEqual({ count: 10 });

      await wh.loadSlice(load('2026-11-20', 20, 100));
      await wh.publish(published);
      await wh.loadSlice(load('2026-11-21', 5, 200));
      await wh.publish(published);

      reader.child.stdin.write('count\n');
      expect(JSON.parse(await reader.nextLine())).toEqual({ count: 10 });
      expect(await countPublished(published)).toBe(35);
      reader.child.stdin.write('exit\n');
      expect((await reader.exited).code).toBe(0);

      expect(readdirSync(tmp.path).filter((name) => name.startsWith('bv.duckdb'))).toEqual(['bv.duckdb']);
    } finally {
      await wh.close();
    }
  });

  it('clears copies a killed publish left, and leaves the published file untouched when a view fails to build', async () => {
    tmp = tempDir('publish-broken-view');
    const published = join(tmp.path, 'bv.duckdb');
    const wh = await openWarehouse(workingPathFor(published));
    try {
      await wh.loadSlice(load('2026-11-19', 3, 1));
      writeFileSync(`${published}.tmp-deadbeef`, 'left by a publish that was killed');
      await wh.publish(published);
      expect(readdirSync(tmp.path).some((name) => name.includes('.tmp-'))).toBe(false);
      await wh.loadSlice(load('2026-11-20', 4, 100));
      const views = join(tmp.path, 'views');
      mkdirSync(views);
      writeFileSync(join(views, '001_v_broken.sql'), 'CREATE VIEW v_broken AS SELECT * FROM no_such_table;');
      await expect(wh.publish(published, { viewsDir: views })).rejects.toThrow(/001_v_broken/);
      expect(await countPublished(published)).toBe(3);
      expect(readdirSync(tmp.path).some((name) => name.includes('.tmp-'))).toBe(false);
      // The working connection is back on its own database after the failure.
      await wh.loadSlice(load('2026-11-21', 1, 300));
      expect(await wh.query('SELECT count(*) AS n FROM conversations')).toEqual([{ n: 8 }]);
    } finally {
      await wh.close();
    }
  });
});
