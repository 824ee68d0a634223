/**
 * DuckDB refused to open a file because another process holds its lock: a file open for writing cannot be opened
 * at all by another process. Only this error may blame "another program"; every other open failure says its own cause.
 */
export class DatabaseLockedError extends Error {
  readonly code = 'database_locked';
  constructor(
    readonly path: string,
    cause: Error,
  ) {
    super(
      `${path} is held by another process (${cause.message.replace(/^IO Error: /, '')}). Is another program (a DuckDB shell, ` +
        'a notebook) holding the .work.duckdb file? Analysts open the published file, read-only.',
      { cause },
    );
    this.name = 'DatabaseLockedError';
  }
}

/** DuckDB's words for a lock held by another process (`Could not set lock on file "...": Conflicting lock is held in ...`). */
export function isLockConflict(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /Could not set lock on file|Conflicting lock is held/i.test(message);
}
