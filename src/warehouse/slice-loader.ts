import {
  DuckDBDataChunkWriter,
  timestampTZValue,
  type DuckDBConnection,
  type DuckDBMaterializedResult,
  type DuckDBPreparedStatement,
  type DuckDBValue,
} from '@duckdb/node-api';
import type { Row, Scope, SliceBatch, TableWrite } from './slice-batch.js';
import type { TablePlan, RowDefaults } from './table-plan.js';
import { castTypeOf } from './table-plan.js';
import { compileScope } from './scope.js';
import { journalWrites } from './publish-journal.js';
import { SLICE_QUERIES_TABLE, sliceQueryWrite } from './provenance.js';
import { quoteIdent } from './sql-names.js';
import { WarehouseError } from './warehouse-error.js';

export const REJECTS_TABLE = '_rejected_records';

export interface LoadHooks {
  /**
   * Runs inside the slice's transaction once every table is written, just before COMMIT. Tests use it to kill
   * the process at the worst moment; production code has no reason to set it.
   */
  beforeCommit?: (batch: SliceBatch) => void | Promise<void>;
}

export interface TableLoadResult {
  table: string;
  mode: TableWrite['mode'];
  /** Rows handed over, before deduplication. */
  staged: number;
  /** Rows removed by a `replace` scope before the insert. */
  deleted: number;
  /** Rows inserted or updated. */
  written: number;
}

export interface LoadResult {
  brandId: number;
  stream: string;
  sliceKey: string;
  tables: TableLoadResult[];
  /** Rows written to data tables (rejects not counted). */
  rowsWritten: number;
  rejects: number;
  /** Wall time in all, and the part spent staging (converting and appending) before the transaction. */
  ms: number;
  stageMs: number;
}

interface StagedWrite {
  write: TableWrite;
  plan: TablePlan;
  stage: string;
  staged: number;
}

/** Resolves a table name to its plan, or throws the error a stream bug deserves. */
export type PlanLookup = (table: string) => TablePlan;

// Statements every slice runs with new values (state, counters, scoped deletes) are prepared once per
// connection: parsing and planning them again cost more than running them on a small slice.
const PREPARED_STATEMENTS_LIMIT = 256;
const preparedStatements = new WeakMap<DuckDBConnection, Map<string, DuckDBPreparedStatement>>();

async function runPrepared(connection: DuckDBConnection, sql: string, values: DuckDBValue[]): Promise<DuckDBMaterializedResult> {
  let cache = preparedStatements.get(connection);
  if (!cache) preparedStatements.set(connection, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) {
    // Scopes with lists give one text per list length; a bound keeps odd shapes from piling up.
    if (cache.size >= PREPARED_STATEMENTS_LIMIT) cache.clear();
    statement = await connection.prepare(sql);
    cache.set(sql, statement);
  }
  statement.clearBindings();
  statement.bind(values);
  return statement.run();
}

/**
 * Loads one slice: stages every table's rows into TEMP tables with the appender (outside the transaction:
 * temp tables are never in the WAL), then in ONE transaction deletes the slice's old facts, inserts or merges
 * the deduplicated new rows, replaces the slice's rejects, upserts its `_sync_state` row and adds to the run's
 * counters. Any failure rolls the whole slice back, so the tables hold either the old slice or the new one.
 * A failed slice usually carries no writes: its state says so and its earlier rows stay.
 */
export async function loadSliceBatch(
  connection: DuckDBConnection,
  lookup: PlanLookup,
  batch: SliceBatch,
  hooks: LoadHooks = {},
): Promise<LoadResult> {
  const started = performance.now();
  checkBatch(batch);
  const now = new Date();
  const defaults: RowDefaults = {
    brandId: BigInt(batch.brandId),
    syncedAt: timestampTZValue(BigInt(now.getTime()) * 1000n),
    runId: batch.runId,
  };
  // A failed fetch that brings no rejects leaves the slice's rows and its earlier rejects as they were; so does an
  // attempt recorded beside a better state.
  if (batch.attemptOnly && (batch.writes.length > 0 || batch.rejects.length > 0)) {
    throw new WarehouseError('row_invalid', 'a batch that only records an attempt cannot carry writes or rejects');
  }
  const keepRejects = batch.attemptOnly === true || (batch.state.status === 'failed' && batch.rejects.length === 0);
  const writes: TableWrite[] = keepRejects ? [...batch.writes] : [...batch.writes, rejectsWrite(batch)];
  if (batch.appliedQuery && !batch.attemptOnly && batch.state.status !== 'failed') writes.push(sliceQueryWrite(batch, batch.appliedQuery));
  for (const write of batch.writes) {
    if (write.table.startsWith('_')) {
      throw new WarehouseError('unknown_table', `a slice cannot write the system table ${write.table}; the loader keeps it`);
    }
  }
  const staged: StagedWrite[] = [];
  try {
    for (const [index, write] of writes.entries()) {
      const item: StagedWrite = { write, plan: lookup(write.table), stage: `_stage_${index}_${write.table}`, staged: 0 };
      // Listed before staging, so a stage half-filled by a bad row is dropped too.
      staged.push(item);
      if (write.rows.length) item.staged = await stageRows(connection, item.plan, write.rows, defaults, item.stage);
    }

    const stageMs = performance.now() - started;
    await connection.run('BEGIN TRANSACTION');
    try {
      const tables: TableLoadResult[] = [];
      for (const item of staged) tables.push(await applyWrite(connection, item, batch.brandId));
      const dataTables = tables.filter((t) => t.table !== REJECTS_TABLE && t.table !== SLICE_QUERIES_TABLE);
      const rowsWritten = dataTables.reduce((sum, t) => sum + t.written, 0);
      // In the slice's transaction, so the next publish knows exactly what to copy into the analysts' file.
      await journalWrites(connection, batch.runId, batch.brandId, writes);
      await upsertSliceState(connection, batch, now);
      await addRunCounters(connection, batch, rowsWritten);
      await hooks.beforeCommit?.(batch);
      await connection.run('COMMIT');
      return {
        brandId: batch.brandId,
        stream: batch.stream,
        sliceKey: batch.sliceKey,
        tables: dataTables,
        rowsWritten,
        rejects: batch.rejects.length,
        ms: performance.now() - started,
        stageMs,
      };
    } catch (error) {
      await connection.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    for (const item of staged) {
      if (item.write.rows.length) {
        await connection.run(`DROP TABLE IF EXISTS temp.main.${quoteIdent(item.stage)}`).catch(() => undefined);
      }
    }
  }
}

function checkBatch(batch: SliceBatch): void {
  const problems: string[] = [];
  if (!Number.isSafeInteger(batch.brandId) || batch.brandId <= 0) problems.push(`brandId ${batch.brandId} is not a brand id`);
  if (!batch.stream) problems.push('stream is empty');
  if (!batch.sliceKey) problems.push('sliceKey is empty');
  if (!batch.runId) problems.push('runId is empty');
  if (problems.length) throw new WarehouseError('row_invalid', `slice batch refused: ${problems.join('; ')}`);
}

/** The slice's rejects as a write of their own, replacing whatever the slice's previous load rejected. */
function rejectsWrite(batch: SliceBatch): TableWrite {
  const rejectedAt = new Date().toISOString();
  return {
    table: REJECTS_TABLE,
    mode: 'replace',
    scope: { brand_id: batch.brandId, stream: batch.stream, slice_key: batch.sliceKey },
    rows: batch.rejects.map((reject, index) => ({
      id: `${batch.brandId}/${batch.stream}/${batch.sliceKey}/${index}`,
      run_id: batch.runId,
      brand_id: batch.brandId,
      stream: batch.stream,
      slice_key: batch.sliceKey,
      source: reject.source,
      raw: (reject.raw ?? null) as Row[string],
      issues: reject.issues,
      rejected_at: rejectedAt,
    })),
  };
}

/** Appends the rows into a fresh TEMP table shaped like the target (no constraints) plus `_seq`, the row's order. */
async function stageRows(
  connection: DuckDBConnection,
  plan: TablePlan,
  rows: readonly Row[],
  defaults: RowDefaults,
  stage: string,
): Promise<number> {
  const table = plan.info.name;
  await connection.run(
    `CREATE OR REPLACE TEMP TABLE ${quoteIdent(stage)} AS SELECT * FROM main.${quoteIdent(table)} LIMIT 0;
     ALTER TABLE temp.main.${quoteIdent(stage)} ADD COLUMN _seq BIGINT;`,
  );
  const appender = await connection.createAppender(stage, 'main', 'temp');
  try {
    const writer = DuckDBDataChunkWriter.forAppender(appender);
    const width = plan.columnNames.length;
    const values: (DuckDBValue | null)[] = new Array<DuckDBValue | null>(width + 1);
    const { columnNames, converters, columnSet } = plan;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      for (const key in row) {
        if (!columnSet.has(key)) {
          throw new WarehouseError(
            'unknown_column',
            `table ${table} has no column "${key}" (row ${r}); a stream must put unknown fields in _extra`,
          );
        }
      }
      for (let c = 0; c < width; c++) {
        const value = row[columnNames[c]!];
        if (value === undefined || value === null) {
          values[c] =
            c === plan.brandIdIndex ? defaults.brandId
            : c === plan.syncedAtIndex ? defaults.syncedAt
            : c === plan.runIdIndex ? defaults.runId
            : null;
          continue;
        }
        if (c === plan.extraIndex && isEmptyObject(value)) {
          values[c] = null;
          continue;
        }
        try {
          values[c] = converters[c]!(value);
        } catch (error) {
          throw new WarehouseError('row_invalid', `${table}.${columnNames[c]} (row ${r}): ${(error as Error).message}`);
        }
      }
      values[width] = BigInt(r);
      writer.appendRow(values);
    }
    writer.flush();
    appender.flushSync();
  } finally {
    try {
      appender.closeSync();
    } catch {
      // Closing flushes; after a failed row the error that matters has already been thrown.
    }
  }
  return rows.length;
}

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Date) return false;
  for (const _ in value) return false;
  return true;
}

/** The staged rows, one per primary key: the LAST occurrence wins, as a later page is the fresher answer. */
function dedupedStage(plan: TablePlan, stage: string): string {
  const key = plan.info.primaryKey.map(quoteIdent).join(', ');
  const source = `SELECT * EXCLUDE (_seq) FROM temp.main.${quoteIdent(stage)}`;
  return key ? `${source} QUALIFY row_number() OVER (PARTITION BY ${key} ORDER BY _seq DESC) = 1` : source;
}

async function applyWrite(connection: DuckDBConnection, item: StagedWrite, brandId: number): Promise<TableLoadResult> {
  const { write, plan, stage } = item;
  const table = `main.${quoteIdent(plan.info.name)}`;
  const result: TableLoadResult = { table: plan.info.name, mode: write.mode, staged: item.staged, deleted: 0, written: 0 };

  if (write.mode === 'replace') {
    const scope: Scope = { ...write.scope };
    if (plan.brandIdIndex >= 0 && !('brand_id' in scope)) scope.brand_id = brandId;
    const { sql: predicate, params } = scopePredicate(plan, scope);
    // The rows are checked in JS first (a few microseconds); only rows that do not plainly match ask DuckDB, whose
    // cast comparison is the authority and names the error. The query cost ~6 ms of a small slice's ~40.
    const inScope = compileScope(scope, brandId);
    if (item.staged && write.rows.some((row) => inScope.check(row) !== undefined)) {
      const outside = await connection.runAndReadAll(
        `SELECT count(*) FROM temp.main.${quoteIdent(stage)} WHERE (${predicate}) IS NOT TRUE`,
        params,
      );
      const count = Number(outside.getRowsJS()[0]![0]);
      if (count > 0) {
        throw new WarehouseError(
          'scope_invalid',
          `${count} row(s) for ${plan.info.name} fall outside the write's scope ${JSON.stringify(scope)}; they would never be replaced`,
        );
      }
    }
    result.deleted = (await runPrepared(connection, `DELETE FROM ${table} WHERE ${predicate}`, params)).rowsChanged;
    if (item.staged) {
      result.written = (await connection.run(`INSERT INTO ${table} BY NAME ${dedupedStage(plan, stage)}`)).rowsChanged;
    }
    return result;
  }

  if (!item.staged) return result;
  const key = plan.info.primaryKey;
  if (!key.length) {
    throw new WarehouseError('unknown_table', `table ${plan.info.name} has no primary key, so it cannot be merged`);
  }
  const on = key.map((column) => `existing.${quoteIdent(column)} = incoming.${quoteIdent(column)}`).join(' AND ');
  // Only the non-key columns are set: updating a key column makes DuckDB delete and re-insert through the
  // index, which measured ~40x slower on a 1M-row re-load.
  const set = plan.columnNames
    .filter((column) => !key.includes(column))
    .map((column) => `${quoteIdent(column)} = incoming.${quoteIdent(column)}`)
    .join(', ');
  result.written = (
    await connection.run(
      `MERGE INTO ${table} AS existing USING (${dedupedStage(plan, stage)}) AS incoming ON ${on}
       ${set ? `WHEN MATCHED THEN UPDATE SET ${set}` : 'WHEN MATCHED THEN DO NOTHING'} WHEN NOT MATCHED THEN INSERT`,
    )
  ).rowsChanged;
  return result;
}

/** `a = CAST($1 AS T) AND b IN (CAST($2 AS T), ...)` over the table's columns, values bound as parameters. */
function scopePredicate(plan: TablePlan, scope: Scope): { sql: string; params: DuckDBValue[] } {
  const parts: string[] = [];
  const params: DuckDBValue[] = [];
  const bind = (value: string | number | boolean, type: string): string => {
    params.push(value);
    return `CAST($${params.length} AS ${type})`;
  };
  for (const [column, value] of Object.entries(scope)) {
    const index = plan.columnNames.indexOf(column);
    if (index < 0) {
      throw new WarehouseError('unknown_column', `table ${plan.info.name} has no column "${column}" (used in a replace scope)`);
    }
    const dataType = plan.columnTypes[index]!;
    if (dataType.endsWith('[]')) {
      throw new WarehouseError('scope_invalid', `${plan.info.name}.${column} is a list and cannot scope a replace`);
    }
    const type = castTypeOf(dataType);
    if (Array.isArray(value)) {
      parts.push(value.length ? `${quoteIdent(column)} IN (${value.map((v) => bind(v, type)).join(', ')})` : 'FALSE');
    } else {
      parts.push(`${quoteIdent(column)} = ${bind(value as string | number | boolean, type)}`);
    }
  }
  if (!parts.length) throw new WarehouseError('scope_invalid', `a replace of ${plan.info.name} needs a scope`);
  return { sql: parts.join(' AND '), params };
}

async function upsertSliceState(connection: DuckDBConnection, batch: SliceBatch, now: Date): Promise<void> {
  const state = batch.state;
  const at = now.toISOString();
  if (batch.attemptOnly) {
    const result = await runPrepared(
      connection,
      `UPDATE _sync_state SET last_attempt_status = $4, last_attempt_at = CAST($5 AS TIMESTAMPTZ), last_attempt_run_id = $6,
         last_attempt_error = CAST($7 AS VARCHAR), last_attempt_error_code = CAST($8 AS VARCHAR),
         last_attempt_request_id = CAST($9 AS VARCHAR), last_attempt_attempts = CAST($10 AS INTEGER)
       WHERE brand_id = CAST($1 AS BIGINT) AND stream = $2 AND slice_key = $3`,
      [
        batch.brandId,
        batch.stream,
        batch.sliceKey,
        state.status,
        at,
        batch.runId,
        state.lastError,
        state.errorCode ?? null,
        state.requestId ?? null,
        state.attempts,
      ],
    );
    if (result.rowsChanged === 0) {
      throw new WarehouseError('row_invalid', `slice ${batch.brandId}/${batch.stream}/${batch.sliceKey} has no state to record an attempt beside`);
    }
    return;
  }
  await runPrepared(
    connection,
    `INSERT INTO _sync_state (brand_id, stream, slice_key, "day", status, "rows", total_rows, attempts, requests,
                              last_error, error_code, request_id, run_id, completed_at, updated_at,
                              last_attempt_status, last_attempt_at, last_attempt_run_id, last_attempt_error,
                              last_attempt_error_code, last_attempt_request_id, last_attempt_attempts)
     VALUES (CAST($1 AS BIGINT), $2, $3, CAST($4 AS DATE), $5, CAST($6 AS BIGINT), CAST($7 AS BIGINT),
             CAST($8 AS INTEGER), CAST($9 AS INTEGER), CAST($10 AS VARCHAR), CAST($11 AS VARCHAR), CAST($12 AS VARCHAR),
             $13, CASE WHEN $5 = 'complete' THEN CAST($14 AS TIMESTAMPTZ) END, CAST($14 AS TIMESTAMPTZ),
             $5, CAST($14 AS TIMESTAMPTZ), $13, CAST($10 AS VARCHAR), CAST($11 AS VARCHAR), CAST($12 AS VARCHAR), CAST($8 AS INTEGER))
     ON CONFLICT (brand_id, stream, slice_key) DO UPDATE SET
       "day" = EXCLUDED."day", status = EXCLUDED.status, "rows" = EXCLUDED."rows", total_rows = EXCLUDED.total_rows,
       attempts = EXCLUDED.attempts, requests = EXCLUDED.requests, last_error = EXCLUDED.last_error,
       error_code = EXCLUDED.error_code, request_id = EXCLUDED.request_id, run_id = EXCLUDED.run_id,
       completed_at = coalesce(EXCLUDED.completed_at, _sync_state.completed_at), updated_at = EXCLUDED.updated_at,
       last_attempt_status = EXCLUDED.last_attempt_status, last_attempt_at = EXCLUDED.last_attempt_at,
       last_attempt_run_id = EXCLUDED.last_attempt_run_id, last_attempt_error = EXCLUDED.last_attempt_error,
       last_attempt_error_code = EXCLUDED.last_attempt_error_code, last_attempt_request_id = EXCLUDED.last_attempt_request_id,
       last_attempt_attempts = EXCLUDED.last_attempt_attempts`,
    [
      batch.brandId,
      batch.stream,
      batch.sliceKey,
      batch.day,
      state.status,
      state.rows,
      state.totalRows,
      state.attempts,
      state.requests,
      state.lastError,
      state.errorCode ?? null,
      state.requestId ?? null,
      batch.runId,
      at,
    ],
  );
}

async function addRunCounters(connection: DuckDBConnection, batch: SliceBatch, rowsWritten: number): Promise<void> {
  const state = batch.state;
  await runPrepared(
    connection,
    `INSERT INTO _sync_runs (run_id, slices, requests, "rows", rejects, errors, retries, rate_limited)
     VALUES ($1, 1, CAST($2 AS BIGINT), CAST($3 AS BIGINT), CAST($4 AS BIGINT), CAST($5 AS BIGINT), CAST($6 AS BIGINT), CAST($7 AS BIGINT))
     ON CONFLICT (run_id) DO UPDATE SET
       slices = _sync_runs.slices + 1, requests = _sync_runs.requests + EXCLUDED.requests,
       "rows" = _sync_runs."rows" + EXCLUDED."rows", rejects = _sync_runs.rejects + EXCLUDED.rejects,
       errors = _sync_runs.errors + EXCLUDED.errors, retries = _sync_runs.retries + EXCLUDED.retries,
       rate_limited = _sync_runs.rate_limited + EXCLUDED.rate_limited`,
    [
      batch.runId,
      state.requests,
      rowsWritten,
      batch.rejects.length,
      state.status === 'failed' ? 1 : 0,
      state.retries ?? 0,
      state.rateLimited ?? 0,
    ],
  );
}
