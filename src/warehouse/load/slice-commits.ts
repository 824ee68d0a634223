import type { DuckDBConnection } from '@duckdb/node-api';
import { readValue } from '../read-rows.js';
import { DAY_MS } from '../../days.js';

/**
 * The fetches whose rows a slice's transaction committed, by the fetch's token, written in that transaction: a commit
 * job replayed after a crash is known by its token, whatever committed the slice since.
 */
export const SLICE_COMMITS_TABLE = '_slice_commits';

/** How long a token is kept; a replay later than this is told by the slice state's run id alone. */
export const SLICE_COMMITS_KEPT_DAYS = 30;

/** Created when the writer opens the file, as the journal is: the loader's own bookkeeping, never in a published copy. */
export async function ensureSliceCommits(connection: DuckDBConnection): Promise<void> {
  await connection.run(
    `CREATE TABLE IF NOT EXISTS ${SLICE_COMMITS_TABLE} (token VARCHAR NOT NULL, run_id VARCHAR NOT NULL, committed_at TIMESTAMPTZ NOT NULL)`,
  );
  // A single-column index, which DuckDB uses for `token IN (...)` (a composite key it does not); pruning after
  // SLICE_COMMITS_KEPT_DAYS bounds it (test/warehouse/slice-commits.int.test.ts).
  await connection.run(`CREATE INDEX IF NOT EXISTS ${SLICE_COMMITS_TABLE}_token ON ${SLICE_COMMITS_TABLE} (token)`);
  // The writer lease's fencing token the commit was made under (commit-fence.ts); null for a writer without a lease.
  await connection.run(`ALTER TABLE ${SLICE_COMMITS_TABLE} ADD COLUMN IF NOT EXISTS fence_token BIGINT`);
  await connection.run(`ALTER TABLE ${SLICE_COMMITS_TABLE} ADD COLUMN IF NOT EXISTS fence_checked_at TIMESTAMPTZ`);
}

/** The lease's fencing token a commit was made under, and when the lease confirmed it. */
export interface FenceMark {
  token: number;
  checkedAt: Date;
}

export interface SliceCommit {
  token: string;
  runId: string;
}

/** Records the commits of one transaction; call it inside that transaction. */
export async function recordSliceCommits(
  connection: DuckDBConnection,
  commits: readonly SliceCommit[],
  at: Date,
  fence?: FenceMark,
): Promise<void> {
  if (!commits.length) return;
  const values: Array<string | null> = [
    at.toISOString(),
    fence ? String(fence.token) : null,
    fence ? fence.checkedAt.toISOString() : null,
  ];
  const rows = commits.map((commit) => {
    values.push(commit.token, commit.runId);
    return `($${values.length - 1}, $${values.length}, CAST($1 AS TIMESTAMPTZ), CAST($2 AS BIGINT), CAST($3 AS TIMESTAMPTZ))`;
  });
  await connection.run(
    `INSERT INTO ${SLICE_COMMITS_TABLE} (token, run_id, committed_at, fence_token, fence_checked_at) VALUES ${rows.join(', ')}`,
    values,
  );
}

/** The highest fencing token any commit of the file was made under; 0 when none was. */
export async function highestFenceToken(connection: DuckDBConnection): Promise<number> {
  return Number(
    await readValue(connection, `SELECT coalesce(max(fence_token), 0)::BIGINT FROM ${SLICE_COMMITS_TABLE}`),
  );
}

/** Which of these tokens a transaction committed the rows of: one index lookup for a batch of commit jobs. */
export async function committedTokens(connection: DuckDBConnection, tokens: readonly string[]): Promise<Set<string>> {
  const asked = [...new Set(tokens)];
  if (!asked.length) return new Set();
  const reader = await connection.runAndReadAll(
    `SELECT DISTINCT token FROM ${SLICE_COMMITS_TABLE} WHERE token IN (${asked.map((_, i) => `$${i + 1}`).join(', ')})`,
    asked,
  );
  return new Set(reader.getRowsJS().map(([token]) => String(token)));
}

/** How many fetches of the run were committed (one token per slice a run commits: a replay finds its token and adds none). */
export async function runCommitCount(connection: DuckDBConnection, runId: string): Promise<number> {
  const sql = `SELECT count(DISTINCT token) FROM ${SLICE_COMMITS_TABLE} WHERE run_id = $1`;
  return Number(await readValue(connection, sql, [runId]));
}

export async function pruneSliceCommits(connection: DuckDBConnection, now: Date): Promise<void> {
  const before = new Date(now.getTime() - SLICE_COMMITS_KEPT_DAYS * DAY_MS);
  await connection.run(`DELETE FROM ${SLICE_COMMITS_TABLE} WHERE committed_at < CAST($1 AS TIMESTAMPTZ)`, [
    before.toISOString(),
  ]);
}
