import type { DuckDBConnection } from '@duckdb/node-api';
import { readValue } from '../read-rows.js';
import type { Scope, TableWrite } from '../load/slice-batch.js';

/**
 * What each slice changed, for a publish to re-copy (a replace's scope, a merge's `_run_id`), written in the slice's
 * transaction: a committed slice is journaled, a rolled-back one never. test/warehouse/publish-incremental.int.test.ts.
 */

export const JOURNAL_TABLE = '_publish_journal';
/** Dropped from published copies with the table: analysts have no use for it. */
export const JOURNAL_SEQUENCE = '_publish_journal_seq';

// A sequence, not max(seq) + 1: entries a publish applied are pruned, and a number used again would look applied.
const JOURNAL_DDL = `
  CREATE SEQUENCE IF NOT EXISTS ${JOURNAL_SEQUENCE};
  CREATE TABLE IF NOT EXISTS ${JOURNAL_TABLE} (
    seq         BIGINT PRIMARY KEY DEFAULT nextval('${JOURNAL_SEQUENCE}'),
    table_name  VARCHAR NOT NULL,
    mode        VARCHAR NOT NULL,
    brand_id    BIGINT NOT NULL,
    scope       VARCHAR,
    run_id      VARCHAR NOT NULL,
    entry_id    VARCHAR DEFAULT (gen_random_uuid()::VARCHAR)
  );
  ALTER TABLE ${JOURNAL_TABLE} ADD COLUMN IF NOT EXISTS entry_id VARCHAR DEFAULT (gen_random_uuid()::VARCHAR);
  UPDATE ${JOURNAL_TABLE} SET entry_id = gen_random_uuid()::VARCHAR WHERE entry_id IS NULL;`;

/** Entries above which a copy (or the lake) is rewritten whole: a long backfill's change set costs as much applied. */
export const MAX_INCREMENTAL_ENTRIES = 20_000;

/**
 * Created when the writer opens the file rather than by a migration: every writer journals whatever version it
 * migrated to (tests open older versions on purpose), and a journal is no data an analyst reads.
 */
export async function ensureJournal(connection: DuckDBConnection): Promise<void> {
  await connection.run(JOURNAL_DDL);
}

export interface JournalEntry {
  seq: bigint;
  table: string;
  mode: TableWrite['mode'];
  brandId: number;
  /** The replace's scope; null for a merge. */
  scope: Scope | null;
  runId: string;
}

/** Journals the writes of one slice; call it inside the slice's transaction, after its writes. */
export async function journalWrites(
  connection: DuckDBConnection,
  runId: string,
  brandId: number,
  writes: readonly TableWrite[],
): Promise<void> {
  if (!writes.length) return;
  const values: (string | number | null)[] = [];
  const rows = writes.map((write) => {
    values.push(write.table, write.mode, brandId, write.mode === 'replace' ? JSON.stringify(write.scope) : null, runId);
    const at = values.length - 4;
    return `($${at}, $${at + 1}, CAST($${at + 2} AS BIGINT), CAST($${at + 3} AS VARCHAR), $${at + 4})`;
  });
  await connection.run(
    `INSERT INTO ${JOURNAL_TABLE} (table_name, mode, brand_id, scope, run_id) VALUES ${rows.join(', ')}`,
    values,
  );
}

/** Entries after `afterSeq`, in order. */
export async function readJournal(connection: DuckDBConnection, afterSeq: bigint): Promise<JournalEntry[]> {
  const reader = await connection.runAndReadAll(
    `SELECT seq, table_name, mode, brand_id, scope, run_id FROM main.${JOURNAL_TABLE} WHERE seq > $1 ORDER BY seq`,
    [afterSeq],
  );
  return (reader.getRowsJS() as Array<[bigint, string, string, bigint, string | null, string]>).map(
    ([seq, table, mode, brandId, scope, runId]) => ({
      seq: BigInt(seq),
      table,
      mode: mode === 'replace' ? 'replace' : 'merge',
      brandId: Number(brandId),
      scope: scope === null ? null : (JSON.parse(scope) as Scope),
      runId,
    }),
  );
}

/** How many entries follow `afterSeq` (all of them without it): counted, not read. */
export async function journalLength(connection: DuckDBConnection, afterSeq?: bigint): Promise<number> {
  return Number(
    await readValue(connection, `SELECT count(*) FROM main.${JOURNAL_TABLE} WHERE seq > $1`, [afterSeq ?? -1n]),
  );
}

/** The last number handed out, or 0 before the first entry: a full copy holds everything up to it. */
export async function journalHead(connection: DuckDBConnection): Promise<bigint> {
  return BigInt((await readValue(connection, `SELECT coalesce(max(seq), 0) FROM main.${JOURNAL_TABLE}`)) as bigint);
}

/**
 * The random id of the entry numbered `seq`, or undefined: a file put back from a backup numbers other changes as a
 * copy's, but a copy's head entry id is found only in the working file the copy was made from.
 */
export async function journalEntryId(connection: DuckDBConnection, seq: bigint): Promise<string | undefined> {
  const id = await readValue(connection, `SELECT entry_id FROM main.${JOURNAL_TABLE} WHERE seq = $1`, [seq]);
  return typeof id === 'string' ? id : undefined;
}

/** The oldest number still in the journal, or undefined when it is empty. */
export async function journalTail(connection: DuckDBConnection): Promise<bigint | undefined> {
  const tail = (await readValue(connection, `SELECT min(seq) FROM main.${JOURNAL_TABLE}`)) as bigint | null;
  return tail === null ? undefined : BigInt(tail);
}

/**
 * Forgets entries a published copy holds; they would only be copied again. The newest is kept as the journal's head,
 * so a publish with nothing to apply still finds the copy current. test/warehouse/publish-incremental.int.test.ts.
 */
export async function pruneJournal(connection: DuckDBConnection, throughSeq: bigint): Promise<void> {
  await connection.run(`DELETE FROM main.${JOURNAL_TABLE} WHERE seq < $1`, [throughSeq]);
}
