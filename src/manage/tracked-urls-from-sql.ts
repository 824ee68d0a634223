import { DuckDBInstance } from '@duckdb/node-api';
import { openReadOnly } from '../warehouse/publish/published-database.js';
import { readRows } from '../warehouse/read-rows.js';
import type { TrackedUrlEntry } from './desired-state-schema.js';
import { ManageFileError } from './manage-file-error.js';

export interface FromSqlOptions {
  /** A DuckDB file to run the query in (read-only, e.g. the published warehouse); default an in-memory DuckDB, which still reads CSV, Parquet and JSON files named in the query. */
  database?: string | undefined;
}

/**
 * Pages to track from a query (`--from-sql "select url, title from ..."`): a column `url`, and optionally `title` and
 * `group` (a group id). A row that cannot be tracked is an error naming its row number, not a row silently skipped.
 */
export async function trackedUrlsFromSql(sql: string, options: FromSqlOptions = {}): Promise<TrackedUrlEntry[]> {
  const source = '--from-sql';
  const { connection, close } = options.database ? await openReadOnly(options.database) : await openInMemory();
  let rows: Array<Record<string, unknown>>;
  try {
    rows = await readRows(connection, sql);
  } catch (error) {
    throw new ManageFileError(source, [`the query failed: ${(error as Error).message}`]);
  } finally {
    close();
  }
  if (rows.length > 0 && !('url' in rows[0]!)) {
    throw new ManageFileError(source, [
      `the query has no column "url" (it has ${Object.keys(rows[0]!).join(', ')}); select url, and optionally title and group`,
    ]);
  }
  const problems: string[] = [];
  const entries: TrackedUrlEntry[] = [];
  rows.forEach((row, index) => {
    const at = `row ${index + 1}`;
    const { url, title, group } = row;
    if (typeof url !== 'string' || url === '')
      return void problems.push(`${at}: url is ${url === null ? 'NULL' : JSON.stringify(url)}; expected an address`);
    if (title !== undefined && title !== null && typeof title !== 'string')
      return void problems.push(`${at}: title must be text`);
    if (group !== undefined && group !== null && !(typeof group === 'number' && Number.isInteger(group) && group > 0)) {
      return void problems.push(`${at}: group must be a group id (a whole number above 0)`);
    }
    entries.push({
      url,
      ...(typeof title === 'string' && title !== '' ? { title } : {}),
      ...(typeof group === 'number' ? { group } : {}),
    });
  });
  if (problems.length)
    throw new ManageFileError(
      source,
      problems.slice(0, 20).concat(problems.length > 20 ? [`and ${problems.length - 20} more rows`] : []),
    );
  return entries;
}

async function openInMemory() {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  return {
    connection,
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}
