/**
 * A problem of the warehouse with a fixed code for logs. `row_invalid` and `unknown_column` are bugs of a
 * stream (the rows do not fit the tables); `migration_changed` means an applied migration file was edited.
 */
export type WarehouseErrorCode =
  | 'unknown_table'
  | 'unknown_column'
  | 'row_invalid'
  | 'scope_invalid'
  | 'migration_changed'
  | 'migration_failed'
  | 'database_missing'
  /** The path is a folder, or a file that is not a DuckDB database: the user's to change (exit 2). */
  | 'database_unusable'
  /** A `sync.promote` entry the warehouse cannot make (docs/schema-drift.md): the user's to change (exit 2). */
  | 'promote_invalid'
  | 'query_failed';

export class WarehouseError extends Error {
  constructor(
    readonly code: WarehouseErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WarehouseError';
  }
}
