import { DuckDBInstance } from '@duckdb/node-api';
import { readRows, type PlainRow } from '../../src/warehouse/read-rows.js';

export interface PublishedReader {
  rows(sql: string): Promise<PlainRow[]>;
  close(): void;
}

/** Opens a published file as an analyst does: read-only, in a DuckDB instance of its own. */
export async function openPublished(path: string): Promise<PublishedReader> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  return {
    rows: (sql) => readRows(connection, sql),
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}
