import type { DuckDBConnection } from '@duckdb/node-api';
import type { PlainRow, RowReader } from '../read-rows.js';

/** The outcome words of a `_heal_runs` round (docs/healing.md). */
export type HealStatus = 'reading' | 'agree' | 'healed' | 'disagree';

/** A round of `sync.heal` as `_heal_runs` holds it; disagreements are `brand|family|day`. */
export interface HealRound {
  healId: string;
  readRunId: string | null;
  windowStart: string;
  windowEnd: string;
  families: string[];
  disagreeingBefore: string[];
  reread: string[];
  leftUnread: string[];
  unresolved: string[];
  disagreeingAfter: string[] | null;
  persisting: string[];
  reported: string[];
  verifyRequests: number;
  readRequests: number;
  status: HealStatus;
  startedAt: string;
  finishedAt: string | null;
}

const COLUMNS = `heal_id, read_run_id, window_start::VARCHAR AS window_start, window_end::VARCHAR AS window_end, families,
  disagreeing_before, reread, left_unread, unresolved, disagreeing_after, persisting, reported, verify_requests,
  read_requests, status, started_at, finished_at`;

/** Records a round (again: a replayed heal job writes the same row). */
export async function saveHealRound(
  connection: DuckDBConnection,
  round: Omit<HealRound, 'startedAt' | 'finishedAt'>,
  finished: boolean,
): Promise<void> {
  const list = (values: string[] | null) => (values === null ? null : JSON.stringify(values));
  await connection.run(
    `INSERT OR REPLACE INTO _heal_runs (heal_id, read_run_id, window_start, window_end, families, disagreeing_before, reread,
       left_unread, unresolved, disagreeing_after, persisting, reported, verify_requests, read_requests, status, started_at, finished_at)
     VALUES ($1, $2, CAST($3 AS DATE), CAST($4 AS DATE), CAST(CAST($5 AS JSON) AS VARCHAR[]), CAST(CAST($6 AS JSON) AS VARCHAR[]),
       CAST(CAST($7 AS JSON) AS VARCHAR[]), CAST(CAST($8 AS JSON) AS VARCHAR[]), CAST(CAST($9 AS JSON) AS VARCHAR[]),
       CAST(CAST($10 AS JSON) AS VARCHAR[]), CAST(CAST($11 AS JSON) AS VARCHAR[]), CAST(CAST($12 AS JSON) AS VARCHAR[]), $13, $14, $15,
       coalesce((SELECT started_at FROM _heal_runs WHERE heal_id = $1), current_timestamp), CASE WHEN $16 THEN current_timestamp END)`,
    [
      round.healId,
      round.readRunId,
      round.windowStart,
      round.windowEnd,
      list(round.families),
      list(round.disagreeingBefore),
      list(round.reread),
      list(round.leftUnread),
      list(round.unresolved),
      list(round.disagreeingAfter),
      list(round.persisting),
      list(round.reported),
      round.verifyRequests,
      round.readRequests,
      round.status,
      finished,
    ],
  );
}

/** The round that followed a scheduled run, or undefined. */
export async function healRound(read: RowReader, healId: string): Promise<HealRound | undefined> {
  const [row] = await read(`SELECT ${COLUMNS} FROM _heal_runs WHERE heal_id = $1`, [healId]);
  return row && roundOf(row);
}

/** The newest finished round: what it left `persisting` is what the next round does not re-read. */
export async function lastFinishedHealRound(read: RowReader): Promise<HealRound | undefined> {
  const [row] = await read(
    `SELECT ${COLUMNS} FROM _heal_runs WHERE finished_at IS NOT NULL ORDER BY finished_at DESC, heal_id DESC LIMIT 1`,
  );
  return row && roundOf(row);
}

/** What rounds finished since round `healId` started (or the last before) left persisting: each was told of once. */
export async function persistingToldSince(read: RowReader, healId: string): Promise<Set<string>> {
  const rows = await read(
    `SELECT DISTINCT unnest(persisting) AS each FROM _heal_runs
     WHERE finished_at >= (SELECT started_at FROM _heal_runs WHERE heal_id = $1)
        OR heal_id = (SELECT heal_id FROM _heal_runs WHERE finished_at IS NOT NULL ORDER BY finished_at DESC, heal_id DESC LIMIT 1)`,
    [healId],
  );
  return new Set(rows.map((row) => String(row.each)));
}

function roundOf(row: PlainRow): HealRound {
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);
  return {
    healId: String(row.heal_id),
    readRunId: row.read_run_id === null ? null : String(row.read_run_id),
    windowStart: String(row.window_start),
    windowEnd: String(row.window_end),
    families: list(row.families),
    disagreeingBefore: list(row.disagreeing_before),
    reread: list(row.reread),
    leftUnread: list(row.left_unread),
    unresolved: list(row.unresolved),
    disagreeingAfter: row.disagreeing_after === null ? null : list(row.disagreeing_after),
    persisting: list(row.persisting),
    reported: list(row.reported),
    verifyRequests: Number(row.verify_requests),
    readRequests: Number(row.read_requests),
    status: String(row.status) as HealStatus,
    startedAt: String(row.started_at),
    finishedAt: row.finished_at === null ? null : String(row.finished_at),
  };
}
