import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { duckdbSettings, type DuckDbBudget } from '../file/duckdb-budget.js';
import { hasDuckDbHeader } from '../file/database-path.js';
import { isLockConflict } from '../file/database-locked-error.js';
import { WarehouseError } from '../warehouse-error.js';

export interface ReadOnlyDatabase {
  path: string;
  connection: DuckDBConnection;
  close(): void;
}

/** Runs `work` on the file opened read-only (openReadOnly), and closes it whatever happens. */
export async function withReadOnly<T>(path: string, work: (database: ReadOnlyDatabase) => Promise<T>): Promise<T> {
  const database = await openReadOnly(path);
  try {
    return await work(database);
  } finally {
    database.close();
  }
}

/**
 * Opens a DuckDB file read-only, never taking the writer's lock, a missing file said clearly; its memory and threads
 * are bounded like the writer's (default the config's), so a large query spills instead of growing the process.
 */
export async function openReadOnly(path: string, budget?: DuckDbBudget): Promise<ReadOnlyDatabase> {
  const absolute = resolve(path);
  if (!existsSync(absolute)) {
    throw new WarehouseError(
      'database_missing',
      `no database at ${absolute}; run a sync first (bvsync sync, or bvsync demo), or choose a file with --db`,
    );
  }
  // DuckDB's own words for these are an IO error about a lock or a header; said as what to change instead.
  if (statSync(absolute).isDirectory())
    throw new WarehouseError(
      'database_unusable',
      `${absolute} is a folder, not a DuckDB file; choose a file with --db`,
    );
  if (!hasDuckDbHeader(absolute))
    throw new WarehouseError(
      'database_unusable',
      `${absolute} is not a DuckDB database; choose another file with --db`,
    );
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(absolute, { ...duckdbSettings(budget), access_mode: 'READ_ONLY' });
  } catch (error) {
    // A writer's lock is said as what to read instead (test/warehouse/cli.int.test.ts, "while a writer holds it").
    const holder = /\(PID \d+\)/.exec((error as Error).message)?.[0];
    const why = isLockConflict(error)
      ? `another process${holder ? ` ${holder}` : ''} holds it open for writing. A bvsync writer holds its working file while it runs: read the published copy instead (leave out --working), or wait until it stops`
      : (error as Error).message;
    throw new WarehouseError('database_missing', `cannot open ${absolute}: ${why}`, { cause: error });
  }
  const connection = await instance.connect();
  return {
    path: absolute,
    connection,
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}
