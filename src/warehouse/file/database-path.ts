import { accessSync, closeSync, constants, existsSync, openSync, readSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { errnoOf } from '../../format.js';
import { describeErrno, FolderError, makeFolder } from '../../make-folder.js';

// A DuckDB file carries this magic at byte 8 of its header.
const DUCKDB_MAGIC = 'DUCK';

/** Whether a file's header is a DuckDB database's (bytes 8-11 spell DUCK); false when it cannot be read that far. */
export function hasDuckDbHeader(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const header = Buffer.alloc(12);
    return readSync(fd, header, 0, 12, 0) === 12 && header.subarray(8, 12).toString('latin1') === DUCKDB_MAGIC;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Where an operator changes the database path; named in every message about it. */
const DB_SETTING = 'BVSYNC_DB (config "db")';

/**
 * A database path bvsync cannot use: its folder cannot be created or written, or the file is not a DuckDB file. The
 * message names the path and the operating system's reason (ENOENT, ENOTDIR, EACCES, EROFS, ...).
 */
export class DatabasePathError extends Error {
  readonly code = 'database_path';
  constructor(
    message: string,
    /** The operating system's error code, when there was one. */
    readonly reason?: string,
    hint = `set ${DB_SETTING} to a file in a folder you can write`,
  ) {
    super(`${message}; ${hint}`);
    this.name = 'DatabasePathError';
  }
}

/** Creates the folder of a database file when it is missing (see make-folder.ts for why not `mkdir -p`). */
export function ensureDatabaseFolder(databasePath: string): void {
  try {
    makeFolder(dirname(resolve(databasePath)), `the database ${databasePath}`);
  } catch (error) {
    if (error instanceof FolderError) throw new DatabasePathError(error.message, error.reason);
    throw error;
  }
}

/**
 * Checks that a database path is usable for writing without touching a file: its folder exists (created when
 * missing) and is writable, and the file is absent or a readable, writable DuckDB file. Throws `DatabasePathError`.
 */
export function checkDatabasePath(databasePath: string): void {
  ensureDatabaseFolder(databasePath);
  const folder = dirname(resolve(databasePath));
  // A file is really created and removed: access(2) says yes to root on a read-only mount or a pseudo file system.
  const probe = join(folder, `.bvsync-write-check-${process.pid}`);
  try {
    closeSync(openSync(probe, 'wx'));
    unlinkSync(probe);
  } catch (error) {
    throw new DatabasePathError(
      `cannot write in the folder ${folder} of the database ${databasePath}: ${describeErrno(error)}`,
      errnoOf(error),
    );
  }
  checkDuckDbFile(databasePath);
}

/** The file is absent, or a regular file this process may read and write that starts like a DuckDB database. */
function checkDuckDbFile(path: string): void {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return;
    throw new DatabasePathError(`cannot read ${path}: ${describeErrno(error)}`, errnoOf(error));
  }
  if (!isFile) throw new DatabasePathError(`${path} is a folder or a device, not a DuckDB file (EISDIR)`, 'EISDIR');
  const header = Buffer.alloc(12);
  let fd: number | undefined;
  try {
    accessSync(path, constants.R_OK | constants.W_OK);
    fd = openSync(path, 'r');
    readSync(fd, header, 0, 12, 0);
  } catch (error) {
    throw new DatabasePathError(`cannot read and write ${path}: ${describeErrno(error)}`, errnoOf(error));
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (header.subarray(8, 12).toString('latin1') !== DUCKDB_MAGIC) {
    throw new DatabasePathError(
      `${path} is not a DuckDB database`,
      undefined,
      `move it away or set ${DB_SETTING} to another file`,
    );
  }
}

/**
 * Throws `DatabasePathError` saying how to go on unless the path is no working file and a published warehouse has its
 * working file beside it: else a publish would replace it with only the run's rows.
 */
export function checkWarehousePair(publishedPath: string, workingPath: string): void {
  // `bv.work` (no extension) is its own working file: workingPathFor gives the same path back.
  if (
    basename(publishedPath, extname(publishedPath)).endsWith('.work') ||
    resolve(publishedPath) === resolve(workingPath)
  ) {
    throw new DatabasePathError(
      `${publishedPath} is a working file, which bvsync writes beside the published file analysts open`,
      undefined,
      `set ${DB_SETTING} to the published file (${join(dirname(publishedPath), basename(publishedPath).replace(/\.work(?=\.[^.]*$|$)/, ''))})`,
    );
  }
  if (!existsSync(publishedPath) || statSync(publishedPath).size === 0 || existsSync(workingPath)) return;
  throw new DatabasePathError(
    `${publishedPath} is a published warehouse without its working file ${workingPath} (moved, restored or deleted?); a run would write a new, empty working file and publish it over ${publishedPath}`,
    undefined,
    `to go on from ${publishedPath}, copy it first: cp ${publishedPath} ${workingPath}; to start a new warehouse, move ${publishedPath} away`,
  );
}
