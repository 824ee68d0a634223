import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, watch, writeFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { workingPathFor } from '../../src/warehouse/paths.js';
import { openReadOnly } from '../../src/warehouse/publish/published-database.js';
import { readRows } from '../../src/warehouse/read-rows.js';
import { tempDir } from '../support/tmp.js';
import { conversationRows, sliceBatch } from './batches.js';

const run = promisify(execFile);
const tmp = tempDir('cli');
const published = join(tmp.path, 'bv.duckdb');

/** Runs `bvsync` as a user would; the environment carries only what the test sets. */
async function bvsync(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
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

/** Runs `bvsync` with `input` on its stdin. */
function bvsyncWithStdin(
  args: string[],
  input: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/bvsync.js', ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

beforeAll(async () => {
  const wh = await openWarehouse(workingPathFor(published));
  await wh.loadSlice(
    sliceBatch({
      writes: [
        { table: 'conversations', mode: 'merge', rows: conversationRows('2026-11-20', 3) },
        {
          table: 'competitors',
          mode: 'merge',
          rows: [{ id: 1, name: 'Comma, "Quoted" Inc', website: 'c.test', is_actual: true }],
        },
      ],
    }),
  );
  await wh.publish(published);
  await wh.close();
});
afterAll(() => tmp.remove());

describe.concurrent('bvsync sql', () => {
  it('ends quietly when its reader stops reading (| head -1), where it threw an EPIPE stack trace', async () => {
    const child = spawn(
      process.execPath,
      ['bin/bvsync.js', 'sql', 'SELECT range AS r FROM range(500000)', '--db', published, '--format', 'csv'],
      {
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
      },
    );
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('prints CSV, quoting what needs it', async () => {
    const result = await bvsync([
      'sql',
      'SELECT id, name, is_actual FROM competitors',
      '--db',
      published,
      '--format',
      'csv',
    ]);
    expect(result).toMatchObject({ code: 0, stdout: 'id,name,is_actual\n1,"Comma, ""Quoted"" Inc",true\n' });
  });

  it('prints JSON with numbers, days and NULLs as such, reading the db from BVSYNC_DB', async () => {
    const result = await bvsync(
      [
        'sql',
        `SELECT id, CAST("day" AS DATE) AS day, recommendation_position FROM conversations ORDER BY id LIMIT 2`,
        '--format',
        'json',
      ],
      { BVSYNC_DB: published },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      { id: 1, day: '2026-11-20', recommendation_position: null },
      { id: 2, day: '2026-11-20', recommendation_position: null },
    ]);
  });

  it('draws a table when asked, and can query the views', async () => {
    const result = await bvsync([
      'sql',
      "SELECT count(*) AS views FROM duckdb_views() WHERE view_name LIKE 'v_%'",
      '--db',
      published,
      '--format',
      'table',
    ]);
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
    // A folder or a file of another kind: the user's to change, exit 2, in words rather than DuckDB's IO error.
    const notes = join(tmp.path, 'notes.duckdb');
    writeFileSync(notes, 'these are my notes, not a database\n');
    const [folder, other] = await Promise.all([
      bvsync(['sql', 'SELECT 1', '--db', tmp.path]),
      bvsync(['sql', 'SELECT 1', '--db', notes]),
    ]);
    expect(folder).toMatchObject({
      code: 2,
      stderr: `bvsync: ${tmp.path} is a folder, not a DuckDB file; choose a file with --db\n`,
    });
    expect(other).toMatchObject({
      code: 2,
      stderr: `bvsync: ${notes} is not a DuckDB database; choose another file with --db\n`,
    });
  });

  it('reads the SQL from --file or from stdin, and takes an inline SQL that starts with a comment', async () => {
    const file = join(tmp.path, 'count.sql');
    writeFileSync(file, '-- Question: how many?\n-- Parameters: none.\nSELECT count(*) AS n FROM conversations;\n');
    const [fromFile, fromStdin, inline] = await Promise.all([
      bvsync(['sql', '--file', file, '--db', published, '--format', 'csv']),
      bvsyncWithStdin(['sql', '-', '--db', published, '--format', 'csv'], 'SELECT count(*) AS n FROM conversations'),
      bvsync([
        'sql',
        '-- Question: how many?\nSELECT count(*) AS n FROM conversations',
        '--db',
        published,
        '--format',
        'csv',
      ]),
    ]);
    expect(fromFile).toMatchObject({ code: 0, stdout: 'n\n3\n' });
    expect(fromStdin).toMatchObject({ code: 0, stdout: 'n\n3\n' });
    expect(inline).toMatchObject({ code: 0, stdout: 'n\n3\n' });
  });

  it('refuses SQL given twice, none or unquoted, and still takes a mistyped option for one', async () => {
    const [both, onlyComments, typo, unquoted] = await Promise.all([
      bvsync(['sql', 'SELECT 1', '--file', join(tmp.path, 'any.sql'), '--db', published]),
      bvsync(['sql', '-- nothing here', '--db', published]),
      bvsync(['sql', 'SELECT 1', '--fromat', 'csv', '--db', published]),
      bvsync(['sql', 'select', '1', '--db', published]),
    ]);
    expect(unquoted.code).toBe(2);
    expect(unquoted.stderr).toContain('the query reached bvsync as 2 words: put it in quotes');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/either as an argument or with --file, not both/);
    expect(onlyComments.code).toBe(2);
    expect(onlyComments.stderr).toMatch(/holds no SQL statement/);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/unknown option '--fromat'/);
  });

  it('prints the result of every statement that returns rows, each under its heading', async () => {
    const sql = "SET VARIABLE who = 'x'; SELECT 1 AS a;\n-- the second\nSELECT 2 AS b, getvariable('who') AS who";
    const [table, csv, json] = await Promise.all([
      bvsync(['sql', sql, '--db', published, '--format', 'table']),
      bvsync(['sql', sql, '--db', published, '--format', 'csv']),
      bvsync(['sql', sql, '--db', published, '--format', 'json']),
    ]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^-- result 1 of 2: SELECT 1 AS a\n┌/);
    expect(table.stdout).toMatch(/\n\n-- result 2 of 2: SELECT 2 AS b, getvariable\('who'\) AS who\n┌[\s\S]*│ x {3}│/);
    expect(csv).toMatchObject({ code: 0, stdout: 'a\n1\n\nb,who\n2,x\n' });
    expect(json.code).toBe(0);
    expect(
      json.stdout
        .trim()
        .split(/\n(?=\[)/)
        .map((part) => JSON.parse(part)),
    ).toEqual([[{ a: 1 }], [{ b: 2, who: 'x' }]]);
  });

  it('keeps in JSON every number exactly: one a JSON number would round stays text', async () => {
    const sql = `SELECT 12345678901234567.89::DECIMAL(38,2) AS wide, 1.50::DECIMAL(4,2) AS short, 9007199254740993::BIGINT AS big,
                        42::BIGINT AS small, 0.0000001::DECIMAL(18,7) AS tiny, -3.25::DECIMAL(5,2) AS negative`;
    const json = await bvsync(['sql', sql, '--db', published, '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        wide: '12345678901234567.89',
        short: 1.5,
        big: '9007199254740993',
        small: 42,
        tiny: '0.0000001',
        negative: -3.25,
      },
    ]);
  });

  it('prints the answers before a failing statement, then names the statement', async () => {
    const result = await bvsync([
      'sql',
      'SELECT 1 AS a; SELECT * FROM no_such_table',
      '--db',
      published,
      '--format',
      'csv',
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('a\n1\n');
    expect(result.stderr).toMatch(
      /^bvsync: query failed in statement 2 of 2: Catalog Error: Table with name no_such_table/,
    );
  });

  it('binds --param as DuckDB variables: whole numbers as BIGINT, the rest as text; an unread name is refused', async () => {
    const sql =
      "SELECT count(*) AS n, typeof(getvariable('first')) AS t FROM conversations WHERE id >= getvariable('first') AND model <> getvariable('skip')";
    const [result, typo, malformed] = await Promise.all([
      bvsync(['sql', sql, '--param', 'first=2', '--param', "skip=it's", '--db', published, '--format', 'csv']),
      bvsync(['sql', sql, '--param', 'frist=2', '--db', published]),
      bvsync(['sql', sql, '--param', 'first', '--db', published]),
    ]);
    expect(result).toMatchObject({ code: 0, stdout: 'n,t\n2,BIGINT\n' });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/--param frist: the SQL never reads getvariable\('frist'\); it reads 'first', 'skip'/);
    expect(malformed.stderr).toMatch(/--param first: expected name=value/);
  });

  it('rounds doubles and spells intervals in a table, and keeps them exact in CSV', async () => {
    const sql = 'SELECT 2/3 AS ratio, INTERVAL 184 SECOND + INTERVAL 129854 MICROSECOND AS took';
    const [table, csv] = await Promise.all([
      bvsync(['sql', sql, '--db', published, '--format', 'table']),
      bvsync(['sql', sql, '--db', published, '--format', 'csv']),
    ]);
    expect(table.stdout).toMatch(/│ 0\.6667 │ 3m 04s │/);
    expect(csv.stdout).toMatch(/^ratio,took\n0\.666666666666666\d*,/);
  });

  it('says what to read instead while a writer holds the file', async () => {
    const held = join(tmp.path, 'held.duckdb');
    const writer = await DuckDBInstance.create(held);
    try {
      const result = await bvsync(['sql', 'SELECT 1', '--db', held]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/another process \(PID \d+\) holds it open for writing/);
      expect(result.stderr).toContain('read the published copy instead (leave out --working)');
    } finally {
      writer.closeSync();
    }
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
    const result = await bvsync([
      'export',
      '--format',
      'parquet',
      '--out',
      out,
      '--db',
      published,
      '--tables',
      'conversations,v_tracked_url_performance',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^conversations\t3 rows\t/m);
    expect(result.stdout).toMatch(/^v_tracked_url_performance\t0 rows\t/m);
    const database = await openReadOnly(published);
    try {
      const rows = await readRows(
        database.connection,
        `SELECT count(*) AS n, min("day") = DATE '2026-11-20' AS typed FROM read_parquet('${join(out, 'conversations.parquet')}')`,
      );
      expect(rows).toEqual([{ n: 3, typed: true }]);
    } finally {
      database.close();
    }
    expect(existsSync(join(out, 'v_tracked_url_performance.parquet'))).toBe(true);
    expect(readdirSync(out).filter((name) => !name.endsWith('.parquet'))).toEqual([]);
  });

  it("refuses a folder where a table's file goes, before writing anything", async () => {
    const out = join(tmp.path, 'in-the-way');
    mkdirSync(join(out, 'conversations.csv'), { recursive: true });
    const result = await bvsync([
      'export',
      '--format',
      'csv',
      '--out',
      out,
      '--db',
      published,
      '--tables',
      'conversations',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${join(out, 'conversations.csv')}: a folder where the export writes a file`);
    expect(readdirSync(out)).toEqual(['conversations.csv']);
    expect(statSync(join(out, 'conversations.csv')).isDirectory()).toBe(true);
  });

  it('leaves the earlier export whole when a table fails: no table is replaced until all are written', async () => {
    const db = join(tmp.path, 'failing-view.duckdb');
    const instance = await DuckDBInstance.create(db);
    const connection = await instance.connect();
    await connection.run("CREATE TABLE a AS SELECT 1 AS n; CREATE VIEW b AS SELECT error('boom') AS n FROM a");
    connection.closeSync();
    instance.closeSync();
    const out = join(tmp.path, 'kept');
    const first = await bvsync(['export', '--format', 'csv', '--out', out, '--db', db, '--tables', 'a,a']);
    expect(first.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    const before = readFileSync(join(out, 'a.csv'), 'utf8');
    const again = await DuckDBInstance.create(db);
    const writer = await again.connect();
    await writer.run('INSERT INTO a VALUES (2)');
    writer.closeSync();
    again.closeSync();
    const failed = await bvsync(['export', '--format', 'csv', '--out', out, '--db', db, '--tables', 'a,b']);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/boom/);
    expect(readFileSync(join(out, 'a.csv'), 'utf8')).toBe(before);
    expect(readdirSync(out)).toEqual(['a.csv']);
  });

  it('ends on SIGTERM with exit 1, removing its partial files and keeping the earlier export', async () => {
    const db = join(tmp.path, 'slow-view.duckdb');
    const instance = await DuckDBInstance.create(db);
    const connection = await instance.connect();
    await connection.run(
      'CREATE TABLE a AS SELECT 1 AS n; CREATE VIEW big AS SELECT range AS n FROM range(1000000000)',
    );
    connection.closeSync();
    instance.closeSync();
    const out = join(tmp.path, 'stopped');
    expect((await bvsync(['export', '--format', 'csv', '--out', out, '--db', db, '--tables', 'a'])).code).toBe(0);
    const before = readFileSync(join(out, 'a.csv'), 'utf8');
    const child = spawn(
      process.execPath,
      ['bin/bvsync.js', 'export', '--format', 'csv', '--out', out, '--db', db, '--tables', 'a,big'],
      {
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
      },
    );
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve) => {
      const watcher = watch(out, () => {
        if (!existsSync(join(out, 'big.csv.partial'))) return;
        watcher.close();
        resolve();
      });
    });
    child.kill('SIGTERM');
    expect(await exit).toBe(1);
    expect(stderr).toContain('interrupted by SIGTERM; the export folder keeps its earlier files');
    expect(readdirSync(out)).toEqual(['a.csv']);
    expect(readFileSync(join(out, 'a.csv'), 'utf8')).toBe(before);
  });

  it('writes every table as CSV by default, and refuses an unknown table or none', async () => {
    const out = join(tmp.path, 'csv');
    const result = await bvsync(['export', '--format', 'csv', '--out', out, '--db', published]);
    expect(result.code).toBe(0);
    expect(existsSync(join(out, 'conversations.csv'))).toBe(true);
    expect(existsSync(join(out, '_sync_state.csv'))).toBe(true);
    expect(existsSync(join(out, 'v_share_of_voice_daily.csv'))).toBe(false);
    const unknown = await bvsync(['export', '--format', 'csv', '--out', out, '--db', published, '--tables', 'nope']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/no table or view "nope"/);
    const none = await bvsync(['export', '--format', 'csv', '--out', out, '--db', published, '--tables', ',']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--tables names no table');
  });

  it('names an --out folder it cannot create and the reason, and exits 2 at once (a recursive mkdir under /proc spun for ever)', async () => {
    // A hang would end at the test's timeout: it used to spin there, deaf to signals.
    const underProc = await bvsync(['export', '--format', 'csv', '--out', '/proc/no-such-dir/out', '--db', published]);
    expect(underProc.code).toBe(2);
    expect(underProc.stderr).toMatch(
      /cannot create the folder \/proc\/no-such-dir for the export folder \/proc\/no-such-dir\/out: ENOENT/,
    );
    const file = join(tmp.path, 'a-file');
    writeFileSync(file, 'not a folder');
    const underFile = await bvsync(['export', '--format', 'csv', '--out', join(file, 'out'), '--db', published]);
    expect(underFile.code).toBe(2);
    expect(underFile.stderr).toContain(`${file} is a file, not a folder (ENOTDIR)`);
  });
});
