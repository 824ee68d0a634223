import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { makeFolder } from '../../make-folder.js';
import { batches } from '../../group-by.js';
import { hasColumn, readCatalog, type TableInfo } from '../catalog.js';
import type { CommitFence } from '../load/commit-fence.js';
import {
  journalEntryId,
  journalTail,
  MAX_INCREMENTAL_ENTRIES,
  pruneJournal,
  readJournal,
  type JournalEntry,
} from './publish-journal.js';
import { isBookkeeping, predicateGroups, scopePredicate, WORKING_FILE_ONLY } from './publish-changes.js';
import { readValue } from '../read-rows.js';
import type { Scope } from '../load/slice-batch.js';
import { quoteIdent, quoteLiteral } from '../sql-names.js';
import { castTypeOf } from '../load/table-plan.js';

/**
 * A Hive-partitioned Parquet copy of the published file (docs/lake.md): only partitions the journal names are
 * rewritten, each staged and renamed into place, the manifest last, so readers see whole partitions of one publish.
 */

const MANIFEST_FILE = '_manifest.json';
/** The partitions a write is about to replace; left behind only by a write that died, whose partitions the next one rewrites. */
const PLAN_FILE = '_writing.json';
const STAGING_PREFIX = '.staging-';
/** How DuckDB's COPY ... PARTITION_BY names a NULL value, and how hive_partitioning reads it back. */
const NULL_PARTITION = '__HIVE_DEFAULT_PARTITION__';
const LAKE_FORMAT = 1;
// Partition paths compared in one statement: keeps the SQL text small.
const PATHS_PER_STATEMENT = 500;

export interface LakeColumn {
  name: string;
  type: string;
}

export interface LakePartition {
  rows: number;
  /** The Parquet files of the partition, in its folder. */
  files: string[];
  /** The publish whose write last rewrote it: those equal to the manifest's `publishId` are what the last write changed. */
  publishId: string;
}

export interface LakeTable {
  /** Hive partition columns, outermost first; empty for a table written as one folder of files. */
  partitionBy: string[];
  /** Every column with its DuckDB type, partition columns included: what a reader declares for an external table. */
  columns: LakeColumn[];
  rows: number;
  /** Keyed by the partition's path under the table's folder (`brand_id=7/day=2026-11-20`); `''` when unpartitioned. */
  partitions: Record<string, LakePartition>;
}

export interface LakeManifest {
  format: typeof LAKE_FORMAT;
  /** The published file this lake equals: its identity (published-identity.ts) when the lake was written. */
  publishId: string;
  writtenAt: string;
  /** The working file, its migrations and the journal entry the lake holds changes through. */
  origin: string;
  schema: string;
  journalSeq: string;
  headEntry: string | null;
  tables: Record<string, LakeTable>;
}

/** Where the working file stands, as publish.ts's marker says it: the lake records the same. */
export interface LakePosition {
  origin: string;
  /** A checksum of the whole migration ledger: a migration added below the newest one changes it too. */
  schema: string;
  journalSeq: bigint;
  /** The id of the journal entry numbered `journalSeq` (publish-journal.ts, journalEntryId); undefined with none. */
  headEntry: string | undefined;
}

export interface LakeResult {
  path: string;
  publishId: string;
  /** `incremental`: the partitions the journal names; `full`: every partition of every table. */
  mode: 'incremental' | 'full';
  fullReason?: string;
  partitionsWritten: number;
  partitionsRemoved: number;
  rowsWritten: number;
  ms: number;
}

/** How the lake write after a publish ended: it never fails the publish, so a failure is told here. */
export type LakeOutcome = ({ ok: true } & LakeResult) | { ok: false; path: string; error: string };

/** The manifest of the lake at `folder`, or undefined when there is none or it is not one this bvsync wrote. */
export function readManifest(folder: string): LakeManifest | undefined {
  const path = join(resolve(folder), MANIFEST_FILE);
  if (!existsSync(path)) return undefined;
  try {
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as LakeManifest;
    return manifest.format === LAKE_FORMAT && typeof manifest.tables === 'object' ? manifest : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The journal entry the lake at `folder` holds changes through, while the journal reaches it: the publish keeps entries
 * from there (publish.ts, `keepJournalFrom`), so a failed lake write is repaired from the journal, not rewritten whole.
 */
export async function lakeJournalFloor(
  connection: DuckDBConnection,
  folder: string,
  position: LakePosition,
): Promise<bigint | undefined> {
  const manifest = readManifest(folder);
  if (!manifest) return undefined;
  return (await staleReason(connection, manifest, position)) === undefined ? BigInt(manifest.journalSeq) : undefined;
}

/**
 * Brings the lake to the working file's state, the published file's (`publishId`): call it right after a publish, on
 * the writer's connection. A failure leaves what a crash would: the last write's manifest, a plan to repair from.
 */
export async function writeLake(
  connection: DuckDBConnection,
  folder: string,
  publishId: string,
  position: LakePosition,
  fence?: CommitFence,
): Promise<LakeResult> {
  const started = performance.now();
  // Only the lease's holder writes the lake: a writer frozen past its lease must not race the new one's renames.
  await fence?.confirm();
  const root = resolve(folder);
  makeFolder(root, `the Parquet lake ${root} (publish.parquet)`);
  removeStaging(root);
  const unfinished = readPlan(root);
  const previous = readManifest(root);
  const catalog = await readCatalog(connection);
  const tables = [...catalog.values()]
    .filter((info) => !WORKING_FILE_ONLY.has(info.name))
    .sort((a, b) => a.name.localeCompare(b.name));

  let fullReason = previous ? await staleReason(connection, previous, position) : 'no lake manifest yet';
  let entries: JournalEntry[] = [];
  if (!fullReason && previous) {
    entries = await readJournal(connection, BigInt(previous.journalSeq));
    if (entries.length > MAX_INCREMENTAL_ENTRIES)
      fullReason = `${entries.length} changes since the lake was written; rewriting it whole is cheaper`;
  }
  const full = fullReason !== undefined;

  // What each table rewrites: every partition, or the named ones.
  const plan = new Map<string, 'all' | Set<string>>();
  for (const info of tables) {
    const before = previous?.tables[info.name];
    const redo = unfinished?.[info.name] ?? unfinished?.[EVERY_TABLE];
    if (
      full ||
      !before ||
      !sameColumns(before.columns, columnsOf(info)) ||
      redo === 'all' ||
      isBookkeeping(info.name)
    ) {
      plan.set(info.name, 'all');
      continue;
    }
    const own = entries.filter((entry) => entry.table === info.name);
    const changed = await changedPartitions(connection, root, info, own, Object.keys(before.partitions));
    for (const partition of redo ?? []) changed.add(partition);
    if (changed.size) plan.set(info.name, changed);
  }
  const gone = Object.keys(previous?.tables ?? {}).filter(
    (table) => !catalog.has(table) || WORKING_FILE_ONLY.has(table),
  );
  writePlan(root, plan, gone);

  const staging = join(root, `${STAGING_PREFIX}${randomBytes(6).toString('hex')}`);
  makeFolder(staging, `the Parquet lake's staging folder ${staging}`);
  const next: Record<string, LakeTable> = {};
  let partitionsWritten = 0;
  let partitionsRemoved = 0;
  let rowsWritten = 0;
  for (const info of tables) {
    const partitionBy = partitionColumns(info);
    const before = previous?.tables[info.name];
    const wanted = plan.get(info.name);
    const table: LakeTable = {
      partitionBy,
      columns: columnsOf(info),
      rows: 0,
      partitions: wanted === 'all' || !before ? {} : { ...before.partitions },
    };
    if (wanted) {
      const written = await rewriteTable(connection, root, staging, info, partitionBy, wanted, publishId);
      partitionsRemoved += written.removed.filter(
        (partition) => before !== undefined && partition in before.partitions,
      ).length;
      for (const partition of written.removed) delete table.partitions[partition];
      for (const [partition, entry] of written.written) table.partitions[partition] = entry;
      partitionsWritten += written.written.size;
      rowsWritten += [...written.written.values()].reduce((sum, entry) => sum + entry.rows, 0);
    }
    table.rows = Object.values(table.partitions).reduce((sum, entry) => sum + entry.rows, 0);
    next[info.name] = table;
  }
  for (const table of gone) rmSync(join(root, table), { recursive: true, force: true });

  const manifest: LakeManifest = {
    format: LAKE_FORMAT,
    publishId,
    writtenAt: new Date().toISOString(),
    origin: position.origin,
    schema: position.schema,
    journalSeq: String(position.journalSeq),
    headEntry: position.headEntry ?? null,
    tables: next,
  };
  await fence?.confirm();
  writeAtomically(join(root, MANIFEST_FILE), `${JSON.stringify(manifest, null, 1)}\n`);
  rmSync(join(root, PLAN_FILE), { force: true });
  rmSync(staging, { recursive: true, force: true });
  // The lake holds every entry up to the publish's now: the publish kept them for it alone.
  await pruneJournal(connection, position.journalSeq);
  return {
    path: root,
    publishId,
    mode: full ? 'full' : 'incremental',
    ...(fullReason ? { fullReason } : {}),
    partitionsWritten,
    partitionsRemoved,
    rowsWritten,
    ms: performance.now() - started,
  };
}

/**
 * The Hive partition columns of a table: `brand_id`, then `day` or the window when the key holds it. A window not in
 * the key (swot_statements) can move a row between partitions under a merge (`changedPartitions`).
 */
function partitionColumns(info: TableInfo): string[] {
  if (isBookkeeping(info.name)) return [];
  const columns = hasColumn(info, 'brand_id') ? ['brand_id'] : [];
  if (hasColumn(info, 'day')) columns.push('day');
  else if (info.primaryKey.includes('window_start') && info.primaryKey.includes('window_end'))
    columns.push('window_start', 'window_end');
  return columns;
}

/** Why the lake cannot be brought up to date from the journal, or undefined when it can (the checks of publish.ts). */
async function staleReason(
  connection: DuckDBConnection,
  manifest: LakeManifest,
  position: LakePosition,
): Promise<string | undefined> {
  if (manifest.origin !== position.origin) return 'the lake was written from another working file';
  if (manifest.schema !== position.schema) return 'migrations ran since the lake was written';
  const seq = BigInt(manifest.journalSeq);
  if (seq > position.journalSeq) return "the lake is ahead of the working file's journal";
  const tail = await journalTail(connection);
  if (tail !== undefined && tail > seq + 1n) return 'the journal no longer reaches back to the lake';
  if (seq > 0n && (await journalEntryId(connection, seq)) !== (manifest.headEntry ?? undefined))
    return "the working file's journal does not hold the change the lake ends with";
  return undefined;
}

function columnsOf(info: TableInfo): LakeColumn[] {
  return info.columns.map((column) => ({ name: column.name, type: column.dataType }));
}

function sameColumns(a: readonly LakeColumn[], b: readonly LakeColumn[]): boolean {
  return a.length === b.length && a.every((column, i) => column.name === b[i]!.name && column.type === b[i]!.type);
}

/** The SQL text of a row's partition path, as COPY ... PARTITION_BY names its folders. */
function pathExpression(partitionBy: readonly string[], alias = ''): string {
  return partitionBy
    .map((column) => `'${column}=' || coalesce(CAST(${alias}${quoteIdent(column)} AS VARCHAR), '${NULL_PARTITION}')`)
    .join(` || '/' || `);
}

/**
 * The partitions the entries changed: every one, in the working file or the lake, a replace scope's partition columns
 * reach, and those holding rows a merging run wrote, now or (partition columns not all in the key) before.
 */
async function changedPartitions(
  connection: DuckDBConnection,
  root: string,
  info: TableInfo,
  entries: readonly JournalEntry[],
  known: readonly string[],
): Promise<Set<string>> {
  const changed = new Set<string>();
  const addPaths = async (sql: string) => {
    for (const [path] of (await connection.runAndReadAll(sql)).getRowsJS()) changed.add(String(path));
  };
  if (!entries.length) return changed;
  const partitionBy = partitionColumns(info);
  if (!partitionBy.length) return new Set(['']);
  const source = `main.${quoteIdent(info.name)}`;
  const scopes: Scope[] = [];
  const runs = new Set<string>();
  for (const entry of entries) {
    if (entry.mode === 'merge' || !entry.scope) {
      runs.add(entry.runId);
      continue;
    }
    // As publish-changes.ts narrows it: the loader applies a scope without brand_id to the slice's brand.
    const scope: Scope = { brand_id: entry.brandId, ...entry.scope };
    const onPartitions: Scope = {};
    for (const column of partitionBy) if (column in scope) onPartitions[column] = scope[column]!;
    scopes.push(onPartitions);
  }
  const predicates = scopes.map((scope) => scopePredicate(info, scope));
  for (const where of predicateGroups(predicates, PATHS_PER_STATEMENT))
    await addPaths(`SELECT DISTINCT ${pathExpression(partitionBy)} FROM ${source} WHERE ${where}`);
  // Partitions whose rows are all gone now: found in the lake's list, by the same scopes.
  for (const path of known) if (scopes.some((scope) => scopeMatches(scope, path))) changed.add(path);
  if (runs.size && !hasColumn(info, '_run_id')) {
    // Merged rows are found by the run that wrote them; without that column every partition may hold one.
    await addPaths(`SELECT DISTINCT ${pathExpression(partitionBy)} FROM ${source}`);
    for (const path of known) changed.add(path);
  } else if (runs.size) {
    const merged = `SELECT * FROM ${source} WHERE _run_id IN (${[...runs].map(quoteLiteral).join(', ')})`;
    await addPaths(`SELECT DISTINCT ${pathExpression(partitionBy)} FROM (${merged})`);
    const keyed = partitionBy.every((column) => info.primaryKey.includes(column));
    if (!keyed && known.length) {
      if (!info.primaryKey.length) {
        for (const path of known) changed.add(path);
      } else {
        // A merged row whose day changed left its old copy in another partition: found by key in the lake itself.
        const files = known
          .map((path) => join(root, info.name, path, '*.parquet'))
          .filter((glob) => existsSync(dirname(glob)));
        if (files.length) {
          const sameKey = info.primaryKey
            .map((column) => `l.${quoteIdent(column)} IS NOT DISTINCT FROM m.${quoteIdent(column)}`)
            .join(' AND ');
          const lake = `read_parquet([${files.map(quoteLiteral).join(', ')}], hive_partitioning = true)`;
          await addPaths(
            `SELECT DISTINCT ${pathExpression(partitionBy, 'l.')} FROM ${lake} l SEMI JOIN (${merged}) m ON ${sameKey}`,
          );
        }
      }
    }
  }
  return changed;
}

function scopeMatches(scope: Scope, path: string): boolean {
  const values = new Map(
    path.split('/').map((part) => [part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1)] as const),
  );
  return Object.entries(scope).every(([column, value]) => {
    const held = values.get(column);
    return Array.isArray(value) ? value.some((v) => String(v) === held) : String(value) === held;
  });
}

/**
 * Writes the `wanted` partitions (or all) to staging in one COPY, renames each one's files over the old (DuckDB's
 * names, `data_0.parquet`, so one rename replaces a file), and removes the partitions left with no rows.
 */
async function rewriteTable(
  connection: DuckDBConnection,
  root: string,
  staging: string,
  info: TableInfo,
  partitionBy: readonly string[],
  wanted: 'all' | Set<string>,
  publishId: string,
): Promise<{ written: Map<string, LakePartition>; removed: string[] }> {
  const source = `main.${quoteIdent(info.name)}`;
  const tableFolder = join(root, info.name);
  const stagedTable = join(staging, info.name);
  const written = new Map<string, LakePartition>();
  const removed: string[] = [];
  const counts = new Map<string, number>();

  makeFolder(stagedTable, `the Parquet lake's staging folder ${stagedTable}`);
  if (!partitionBy.length) {
    await connection.run(
      `COPY (SELECT * FROM ${source}) TO ${quoteLiteral(join(stagedTable, 'data_0.parquet'))} (FORMAT parquet, COMPRESSION zstd)`,
    );
    counts.set('', Number(await readValue(connection, `SELECT count(*) FROM ${source}`)));
  } else {
    const path = pathExpression(partitionBy);
    const filters =
      wanted === 'all'
        ? ['TRUE']
        : batches([...wanted], PATHS_PER_STATEMENT).map(
            (paths) => `${rangeOf(info, partitionBy, paths)} AND ${path} IN (${paths.map(quoteLiteral).join(', ')})`,
          );
    for (const [i, where] of filters.entries()) {
      const reader = await connection.runAndReadAll(
        `SELECT ${path}, count(*) FROM ${source} WHERE ${where} GROUP BY 1`,
      );
      for (const [partition, rows] of reader.getRowsJS()) counts.set(String(partition), Number(rows));
      if (!reader.getRowsJS().length) continue;
      // Each COPY writes its own folder: PARTITION_BY refuses one that holds files already.
      await connection.run(
        `COPY (SELECT * FROM ${source} WHERE ${where}) TO ${quoteLiteral(join(stagedTable, String(i)))} ` +
          `(FORMAT parquet, COMPRESSION zstd, PARTITION_BY (${partitionBy.map(quoteIdent).join(', ')}))`,
      );
    }
  }

  const stagedFolder = (partition: string) => {
    if (!partitionBy.length) return stagedTable;
    for (const i of readdirSync(stagedTable))
      if (existsSync(join(stagedTable, i, partition))) return join(stagedTable, i, partition);
    return undefined;
  };
  const targets =
    wanted === 'all' ? new Set([...counts.keys(), ...partitionsOnDisk(tableFolder, partitionBy.length)]) : wanted;
  for (const partition of [...targets].sort()) {
    const folder = join(tableFolder, partition);
    const from = counts.has(partition) ? stagedFolder(partition) : undefined;
    if (from) {
      makeFolder(folder, `the Parquet lake partition ${folder}`);
      const files = readdirSync(from)
        .filter((name) => name.endsWith('.parquet'))
        .sort();
      for (const file of files) renameSync(join(from, file), join(folder, file));
      for (const name of readdirSync(folder))
        if (name.endsWith('.parquet') && !files.includes(name)) rmSync(join(folder, name), { force: true });
      written.set(partition, { rows: counts.get(partition)!, files, publishId });
    } else {
      if (existsSync(folder)) {
        for (const name of readdirSync(folder))
          if (name.endsWith('.parquet')) rmSync(join(folder, name), { force: true });
        removeEmptyFolders(folder, tableFolder);
      }
      removed.push(partition);
    }
  }
  return { written, removed };
}

/**
 * Each partition column between the least and greatest value the paths name: a condition DuckDB checks against its
 * zone maps, so a publish that changed a few days reads those days' row groups, not the whole table.
 */
function rangeOf(info: TableInfo, partitionBy: readonly string[], paths: readonly string[]): string {
  return partitionBy
    .map((column, level) => {
      const type = castTypeOf(info.columns.find((c) => c.name === column)!.dataType);
      const values = [...new Set(paths.map((path) => path.split('/')[level]!.slice(column.length + 1)))];
      const typed = values
        .filter((value) => value !== NULL_PARTITION)
        .map((value) => `CAST(${quoteLiteral(value)} AS ${type})`);
      const orNull = typed.length < values.length ? ` OR ${quoteIdent(column)} IS NULL` : '';
      if (!typed.length) return `(${quoteIdent(column)} IS NULL)`;
      return `(${quoteIdent(column)} BETWEEN least(${typed.join(', ')}) AND greatest(${typed.join(', ')})${orNull})`;
    })
    .join(' AND ');
}

/** The partition paths under a table's folder, `depth` folders down; those that hold a Parquet file. */
function partitionsOnDisk(tableFolder: string, depth: number): string[] {
  if (!existsSync(tableFolder)) return [];
  if (depth === 0) return readdirSync(tableFolder).some((name) => name.endsWith('.parquet')) ? [''] : [];
  let paths = [''];
  for (let level = 0; level < depth; level++) {
    paths = paths.flatMap((path) => {
      const folder = join(tableFolder, path);
      if (!existsSync(folder) || !statSync(folder).isDirectory()) return [];
      return readdirSync(folder)
        .filter((name) => name.includes('=') && statSync(join(folder, name)).isDirectory())
        .map((name) => (path ? `${path}/${name}` : name));
    });
  }
  return paths.filter((path) => readdirSync(join(tableFolder, path)).some((name) => name.endsWith('.parquet')));
}

function removeEmptyFolders(folder: string, stopAt: string): void {
  let current = folder;
  while (current.startsWith(`${stopAt}/`) && existsSync(current) && readdirSync(current).length === 0) {
    rmSync(current, { recursive: true, force: true });
    current = dirname(current);
  }
}

type Plan = Record<string, 'all' | string[]>;
/** The key of a plan that could not be read: every table is written whole. */
const EVERY_TABLE = '*';

function writePlan(root: string, plan: Map<string, 'all' | Set<string>>, gone: string[]): void {
  const text: Plan = {};
  for (const [table, partitions] of plan) text[table] = partitions === 'all' ? 'all' : [...partitions];
  for (const table of gone) text[table] = 'all';
  writeAtomically(join(root, PLAN_FILE), `${JSON.stringify(text)}\n`);
}

/** The plan a write that died left; its partitions may hold a mix of publishes, so they are written again. */
function readPlan(root: string): Plan | undefined {
  const path = join(root, PLAN_FILE);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Plan;
  } catch {
    // A plan cut short: which partitions it named is unknown, so every table is written whole.
    return { [EVERY_TABLE]: 'all' };
  }
}

/** Staging folders of writes that died: only the single writer writes the lake, so none is in use. */
function removeStaging(root: string): void {
  for (const name of readdirSync(root))
    if ([STAGING_PREFIX, `${MANIFEST_FILE}.tmp-`, `${PLAN_FILE}.tmp-`].some((prefix) => name.startsWith(prefix)))
      rmSync(join(root, name), { recursive: true, force: true });
}

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.tmp-${randomBytes(6).toString('hex')}`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}
