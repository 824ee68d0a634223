import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { workingPathFor } from '../../src/warehouse/paths.js';
import { openReadOnly } from '../../src/warehouse/published-database.js';
import { readRows } from '../../src/warehouse/read-rows.js';
import { tempDir } from '../support/tmp.js';
import { conversationRows, sliceBatch } from './batches.js';

const run = promisify(execFile);
const tmp = tempDir('cli');
const published = join(tmp.path, 'bv.duckdb');

/** Runs `bvsync` as a user would; the environment carries only what the test sets. */
async function bvsync(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/bvsync.js', ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  const wh = await openWarehouse(workingPathFor(published));
  await wh.loadSlice(
    sliceBatch({
      writes: [
        { table: 'conversations', mode: 'merge', rows: conversationRows('2026-11-20', 3) },
        { table: 'competitors', mode: 'merge', rows: [{ id: 1, name: 'Comma, "Quoted" Inc', website: 'c.test', is_actual: true }] },
      ],
    }),
  );
  await wh.publish(published);
  await wh.close();
});
afterAll(() => tmp.remove());

describe.concurrent('bvsync sql', () => {
  it('prints CSV, quoting what needs it', async () => {
    const result = await bvsync(['sql', 'SELECT id, name, is_actual FROM competitors', '--db', published, '--format', 'csv']);
    expect(result).toMatchObject({ code: 0, stdout: 'id,name,is_actual\n1,"Comma, ""Quoted"" Inc",true\n' });
  });

  it('prints JSON with numbers, days and NULLs as such, reading the db from BVSYNC_DB', async () => {
    const result = await bvsync(
      ['sql', `SELECT id, CAST("day" AS DATE) AS day, recommendation_position FROM conversations ORDER BY id LIMIT 2`, '--format', 'json'],
      { BVSYNC_DB: published },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      { id: 1, day: '2026-11-20', recommendation_position: null },
      { id: 2, day: '2026-11-20', recommendation_position: null },
    ]);
  });

  it('draws a table when asked, and can query the views', async () => {
    const result = await bvsync(['sql', 'SELECT count(*) AS views FROM duckdb_views() WHERE view_name LIKE \'v_%\'', '--db', published, '--format', 'table']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/│ views │/);
    expect(result.stdout).toMatch(/\(1 row\)/);
  });

  it('fails with one clear message on bad SQL or a missing file', async () => {
    const bad = await bvsync(['sql', 'SELEC nothing', '--db', published]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/^bvsync: query failed: Parser Error/);
    expect(bad.stdout).toBe('');
    const missing = await bvsync(['sql', 'SELECT 1', '--db', join(tmp.path, 'nope.duckdb')]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/^bvsync: no database at .*nope\.duckdb; run a sync first/);
  });

  it('cannot write to the published copy', async () => {
    const result = await bvsync(['sql', 'DELETE FROM conversations', '--db', published]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/read-only/i);
  });
});

describe.concurrent('bvsync export', () => {
  it('writes one Parquet file per table that DuckDB reads back whole', async () => {
    const out = join(tmp.path, 'parquet');
    const result = await bvsync(['export', '--format', 'parquet', '--out', out, '--db', published, '--tables', 'conversations,v_tracked_url_performance']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^conversations\t3 rows\t/m);
    const database = await openReadOnly(published);
    try {
      const rows = await readRows(database.connection, `SELECT count(*) AS n, min("day") = DATE '2026-11-20' AS typed FROM read_parquet('${join(out, 'conversations.parquet')}')`);
      expect(rows).toEqual([{ n: 3, typed: true }]);
    } finally {
      database.close();
    }
    expect(existsSync(join(out, 'v_tracked_url_performance.parquet'))).toBe(true);
  });

  it('writes every table as CSV by default, and refuses an unknown table', async () => {
    const out = join(tmp.path, 'csv');
    const result = await bvsync(['export', '--format', 'csv', '--out', out, '--db', published]);
    expect(result.code).toBe(0);
    expect(existsSync(join(out, 'conversations.csv'))).toBe(true);
    expect(existsSync(join(out, '_sync_state.csv'))).toBe(true);
    expect(existsSync(join(out, 'v_share_of_voice_daily.csv'))).toBe(false);
    const unknown = await bvsync(['export', '--format', 'csv', '--out', out, '--db', published, '--tables', 'nope']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/no table or view "nope"/);
  });
});
