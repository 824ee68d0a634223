import { statSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { readValue } from '../read-rows.js';

/**
 * Which file each published path held when bvsync last renamed a copy over it: a copy changed by anyone else (the
 * update's check compares only row counts) is replaced whole. test/warehouse/publish-incremental.int.test.ts.
 */
export const PUBLISHED_FILES_TABLE = '_published_files';

/** Created when the writer opens the file, as the journal is: publishing's own bookkeeping, never in a copy. */
export async function ensurePublishedFiles(connection: DuckDBConnection): Promise<void> {
  await connection.run(
    `CREATE TABLE IF NOT EXISTS ${PUBLISHED_FILES_TABLE} (path VARCHAR PRIMARY KEY, identity VARCHAR NOT NULL)`,
  );
}

/** A file as it was last written: a rename over it or a write to it changes this. */
export function identityOf(path: string): string {
  const stats = statSync(path, { bigint: true });
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}`;
}

/** The identity recorded for a published path; undefined when none is (no publish since this check came in). */
export async function recordedIdentity(connection: DuckDBConnection, path: string): Promise<string | undefined> {
  const identity = await readValue(connection, `SELECT identity FROM main.${PUBLISHED_FILES_TABLE} WHERE path = $1`, [
    path,
  ]);
  return typeof identity === 'string' ? identity : undefined;
}

/** Records the file now at a published path, just after a publish renamed it there. */
export async function recordIdentity(connection: DuckDBConnection, path: string): Promise<void> {
  await connection.run(`INSERT OR REPLACE INTO main.${PUBLISHED_FILES_TABLE} (path, identity) VALUES ($1, $2)`, [
    path,
    identityOf(path),
  ]);
}
