import { accessSync, closeSync, constants, mkdirSync, openSync, readSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

// A DuckDB file carries this magic at byte 8 of its header.
const DUCKDB_MAGIC = 'DUCK';

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

/**
 * Creates the folder of a database file when it is missing, one level at a time. Not `mkdir -p`: Node's recursive
 * mkdir loops for ever, on one core and deaf to signals, when the kernel refuses a folder in an existing one with
 * ENOENT (any folder under /proc), which is how `BVSYNC_DB=/proc/no-such-dir/bv.duckdb` used to hang the command.
 */
export function ensureDatabaseFolder(databasePath: string): void {
  const folder = dirname(resolve(databasePath));
  const missing: string[] = [];
  let existing = folder;
  for (;;) {
    const kind = kindOf(existing, databasePath);
    if (kind === 'folder') break;
    if (kind === 'other') {
      throw new DatabasePathError(`cannot create the database ${databasePath}: ${existing} is a file, not a folder (ENOTDIR)`, 'ENOTDIR');
    }
    missing.unshift(existing);
    const parent = dirname(existing);
    // The root always exists; this only guards against a path that never reaches it.
    if (parent === existing) break;
    existing = parent;
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error) {
      const code = errnoOf(error);
      if (code === 'EEXIST' && kindOf(path, databasePath) === 'folder') continue; // created by another process meanwhile
      throw new DatabasePathError(`cannot create the folder ${path} for the database ${databasePath}: ${describeErrno(error)}`, code);
    }
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
    throw new DatabasePathError(`cannot write in the folder ${folder} of the database ${databasePath}: ${describeErrno(error)}`, errnoOf(error));
  }
  checkDuckDbFile(databasePath);
}

/** The file is absent, or a regular file this process may read and write that starts like a DuckDB database. */
export function checkDuckDbFile(path: string): void {
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
    throw new DatabasePathError(`${path} is not a DuckDB database`, undefined, `move it away or set ${DB_SETTING} to another file`);
  }
}

function kindOf(path: string, databasePath: string): 'folder' | 'other' | 'missing' {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'other';
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ENOENT') return 'missing';
    // ENOTDIR: a part of the path above is a file; the loop reaches it and names it.
    if (code === 'ENOTDIR') return 'missing';
    throw new DatabasePathError(`cannot look at ${path}, the folder of the database ${databasePath}: ${describeErrno(error)}`, code);
  }
}

function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** `ENOENT (no such file or directory)`: the code to search for and the words to read. */
export function describeErrno(error: unknown): string {
  const code = errnoOf(error);
  const message = error instanceof Error ? error.message : String(error);
  // Node's messages read `ENOENT: no such file or directory, mkdir '/proc/x'`; the path is named by the caller.
  const words = /^[A-Z0-9_]+: ([^,]+)/.exec(message)?.[1];
  if (code && words) return `${code} (${words})`;
  return code ?? message;
}
