import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDatabasePath, DatabasePathError, ensureDatabaseFolder } from '../../src/warehouse/file/database-path.js';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../support/tmp.js';

/** Whether a database path can be used, told before DuckDB is asked, with the path and the system's reason. */

const dir = tempDir('database-path');
afterAll(() => dir.remove());

const failure = (work: () => unknown): DatabasePathError => {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(DatabasePathError);
    return error as DatabasePathError;
  }
  throw new Error('expected a DatabasePathError');
};

describe('a database path', () => {
  it('gets its missing folders, one level at a time', () => {
    const path = join(dir.path, 'a', 'b', 'c', 'bv.duckdb');
    ensureDatabaseFolder(path);
    expect(statSync(join(dir.path, 'a', 'b', 'c')).isDirectory()).toBe(true);
    checkDatabasePath(path);
    // The write check leaves nothing behind.
    expect(readdirSync(join(dir.path, 'a', 'b', 'c'))).toEqual([]);
  });

  it("under /proc: ENOENT, at once (Node's recursive mkdir never returns there)", () => {
    const error = failure(() => ensureDatabaseFolder('/proc/no-such-dir/deeper/bv.duckdb'));
    expect(error.reason).toBe('ENOENT');
    expect(error.message).toMatch(
      /^cannot create the folder \/proc\/no-such-dir for the database \/proc\/no-such-dir\/deeper\/bv\.duckdb: ENOENT \(no such file or directory\)/,
    );
  });

  it('below a file: names the file, ENOTDIR, however deep', () => {
    const file = join(dir.path, 'plain-file');
    writeFileSync(file, 'x');
    for (const path of [join(file, 'bv.duckdb'), join(file, 'x', 'y', 'bv.duckdb')]) {
      const error = failure(() => checkDatabasePath(path));
      expect(error.reason).toBe('ENOTDIR');
      expect(error.message).toContain(`${file} is a file, not a folder (ENOTDIR)`);
    }
  });

  it('a folder where the file should be: EISDIR', () => {
    const path = join(dir.path, 'folder.duckdb');
    mkdirSync(path);
    expect(failure(() => checkDatabasePath(path)).reason).toBe('EISDIR');
  });

  it('a file that is not a database: named, left as it was', () => {
    const path = join(dir.path, 'notes.duckdb');
    writeFileSync(path, 'my notes, long enough to have a header of twelve bytes');
    expect(failure(() => checkDatabasePath(path)).message).toMatch(
      /notes\.duckdb is not a DuckDB database; move it away or set BVSYNC_DB/,
    );
    expect(existsSync(path)).toBe(true);
  });
});

// A lock held by another process is named as such: test/e2e/setup-errors.int.test.ts, operator-mistakes.int.test.ts.
describe('opening the working database', () => {
  it('a folder that cannot be created: the path error, not a lock', async () => {
    const error = await openWarehouse('/proc/no-such-dir/bv.work.duckdb').then(
      () => undefined,
      (failed: unknown) => failed,
    );
    expect(error).toBeInstanceOf(DatabasePathError);
    expect((error as Error).message).not.toMatch(/another program/);
  });
});
