import { createHash, randomBytes } from 'node:crypto';
import { constants, existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { makeFolder } from '../../make-folder.js';
import { readCatalog } from '../catalog.js';
import type { LakeOutcome, LakePosition } from './parquet-lake.js';
import { schemaVersion } from '../migrator.js';
import { VIEWS_DIR } from '../paths.js';
import {
  applyJournal,
  differingTables,
  FullCopyNeeded,
  probeChanges,
  WORKING_FILE_ONLY,
  type ChangesProbe,
} from './publish-changes.js';
import { estimatePublish, readPublishRates, recordPublishRate, type PublishEstimate } from './publish-cost.js';
import {
  JOURNAL_SEQUENCE,
  journalEntryId,
  journalHead,
  journalLength,
  journalTail,
  MAX_INCREMENTAL_ENTRIES,
  pruneJournal,
  readJournal,
} from './publish-journal.js';
import { identityOf, recordedIdentity, recordIdentity } from './published-identity.js';
import { readValue } from '../read-rows.js';
import { readNumberedSqlFiles, type SqlFile } from '../sql-files.js';
import { quoteIdent, quoteLiteral } from '../sql-names.js';
import { inTransaction } from '../transaction.js';
import { WarehouseError } from '../warehouse-error.js';

export interface PublishOptions {
  /** Folder of `NNN_name.sql` view files created in the copy, in name order; default the package's `sql/views/`. */
  viewsDir?: string;
  /** Set false to copy the whole working file even when the published copy could be brought up to date; default true. */
  incremental?: boolean;
  /** A clone of the published file begun earlier (`preparePublishClone`): used if the file is still the one it cloned. */
  prepared?: PreparedClone | undefined;
  /**
   * Keep the journal from this entry on, for the Parquet lake (parquet-lake.ts) that has not taken the later ones yet;
   * default: pruned through what the publish holds.
   */
  keepJournalFrom?: bigint | undefined;
  /** Working files smaller than this (MB) are brought up to date without pricing both ways; default PRICED_FROM_MB. */
  pricedFromMb?: number;
}

/**
 * Below this size either way costs well under a second, and the probe that prices them would cost a good part of it:
 * the copy is brought up to date unpriced.
 */
const PRICED_FROM_MB = 16;

/**
 * A clone of the published file made while a run still fetches and loads, so that its publish only brings it up to
 * date; without reflinks the clone is a byte copy, whose I/O then overlaps the API's answers (docs/performance.md).
 */
export interface PreparedClone {
  /** The published file it is a clone of. */
  target: string;
  path: string;
  /** The published file's identity when the clone began: the clone serves only while the file is still that one. */
  from: string;
  /** True once the copy is whole; false when it failed (and is removed). */
  done: Promise<boolean>;
}

/** Begins a clone of the published file beside it; undefined when there is none yet (the first publish copies). */
export function preparePublishClone(publishedPath: string): PreparedClone | undefined {
  const target = resolve(publishedPath);
  if (!existsSync(target)) return undefined;
  const from = identityOf(target);
  const path = temporaryPath(target);
  const done = copyFile(target, path, constants.COPYFILE_FICLONE).then(
    () => true,
    () => {
      removeCopy(path);
      return false;
    },
  );
  return { target, path, from, done };
}

/** Removes a prepared clone that will not be used, once its copy has stopped. */
export async function discardPreparedClone(prepared: PreparedClone | undefined): Promise<void> {
  if (!prepared) return;
  await prepared.done;
  removeCopy(prepared.path);
}

export interface PublishResult {
  path: string;
  bytes: number;
  ms: number;
  views: string[];
  /** `incremental`: the previous copy with this run's changes applied; `full`: the whole working file copied. */
  mode: 'incremental' | 'full';
  /** Why a full copy was made, when the previous copy was not brought up to date. */
  fullCopyReason?: string;
  /** What each way was priced at, when both were possible (publish-cost.ts). */
  estimate?: PublishEstimate;
  /**
   * Where the replaced file's write-ahead log was moved, when it had one (someone opened the published file read-write
   * and wrote to it): left beside the new file, DuckDB would replay it onto rows it was never written for.
   */
  staleWal?: string;
  /** The Parquet lake written after the publish (`publish.parquet`), when one is configured. */
  lake?: LakeOutcome;
}

const PUBLISH_ALIAS = 'bvsync_publish';

/** Written in every published copy: what it holds, so the next publish knows whether it can bring it up to date. */
const MARKER_TABLE = '_published';

interface Marker extends LakePosition {
  /** The newest migration, for messages; `schema` is what is compared. */
  schemaVersion: number;
  views: string;
}

/**
 * Makes the analysts' copy current (the previous one cloned with the journal applied, or the whole working file
 * copied) and renames it over the published file; open readers keep their snapshot. test/warehouse/publish.int.test.ts.
 */
export async function publishCopy(
  connection: DuckDBConnection,
  publishedPath: string,
  options: PublishOptions = {},
): Promise<PublishResult> {
  try {
    return await publishWith(connection, publishedPath, options);
  } finally {
    // Renamed into place when it served; otherwise removed here (test/warehouse/publish-incremental.int.test.ts).
    await discardPreparedClone(options.prepared);
  }
}

async function publishWith(
  connection: DuckDBConnection,
  publishedPath: string,
  options: PublishOptions,
): Promise<PublishResult> {
  const started = performance.now();
  const target = resolve(publishedPath);
  makeFolder(dirname(target), `the published database ${target}`);
  removeStaleCopies(target, options.prepared?.path);
  const clone = await usableClone(options.prepared, target);
  const views = readNumberedSqlFiles(options.viewsDir ?? VIEWS_DIR);
  const working = String(await readValue(connection, 'SELECT current_database()'));
  const marker: Marker = {
    ...(await publishPosition(connection)),
    schemaVersion: await schemaVersion(connection),
    views: checksumOf(views.flatMap((view) => [view.name, view.text])),
  };
  let staleWal: string | undefined;

  let mode: PublishResult['mode'] = 'full';
  let fullCopyReason: string | undefined;
  let estimate: PublishEstimate | undefined;
  if (options.incremental === false) fullCopyReason = 'asked for a full copy';
  else if (!existsSync(target)) fullCopyReason = 'no published copy yet';
  else
    ({ reason: fullCopyReason, estimate } = await priceWays(
      connection,
      working,
      target,
      clone,
      options.pricedFromMb ?? PRICED_FROM_MB,
    ));
  if (fullCopyReason === undefined) {
    const temporary = clone ?? temporaryPath(target);
    let cloneMs = 0;
    const copy = clone
      ? undefined
      : async () => {
          const begun = performance.now();
          await copyFile(target, temporary, constants.COPYFILE_FICLONE);
          cloneMs = performance.now() - begun;
        };
    const recorded = await recordedIdentity(connection, target);
    const writtenSince = recorded !== undefined && identityOf(target) !== recorded;
    try {
      const begun = performance.now();
      await attached(connection, temporary, () => updateCopy(connection, marker, writtenSince), copy);
      const appliedMs = performance.now() - begun - cloneMs;
      staleWal = setAsideWal(target);
      renameSync(temporary, target);
      mode = 'incremental';
      if (estimate) await recordPublishRate(connection, { way: 'incremental', ms: appliedMs, estimate });
    } catch (error) {
      removeCopy(temporary);
      // Whatever kept the copy from being brought up to date (a file that is no DuckDB database, a key collision),
      // the full copy does not depend on it; a cause that stops the full copy too (a full disk) is thrown from there.
      fullCopyReason =
        error instanceof FullCopyNeeded
          ? error.message
          : `the published copy could not be updated: ${(error as Error).message}`;
    }
  }
  if (mode === 'full') {
    if (clone) removeCopy(clone);
    const temporary = temporaryPath(target);
    try {
      const begun = performance.now();
      const source = await checkpointedFile(connection, working);
      const copy = source ? () => copyFile(source, temporary, constants.COPYFILE_FICLONE) : undefined;
      await attached(connection, temporary, () => fullCopy(connection, working, views, marker), copy);
      // A byte copy only: one made by COPY FROM DATABASE costs by rows and indexes, not by the file's bytes.
      if (source)
        await recordPublishRate(connection, {
          way: 'full',
          ms: performance.now() - begun,
          mb: statSync(source).size / 2 ** 20,
        });
      // An incremental attempt that failed at its rename has set the WAL aside already.
      staleWal = setAsideWal(target) ?? staleWal;
      renameSync(temporary, target);
    } catch (error) {
      removeCopy(temporary);
      throw error;
    }
  }
  // A crash before this is recorded only makes the next publish copy the whole file again.
  await recordIdentity(connection, target);
  // The published copy holds every entry up to the marker now; a crash before this line only makes the next
  // publish copy them again.
  await pruneJournal(connection, keptFrom(marker.journalSeq, options.keepJournalFrom));
  return {
    path: target,
    bytes: statSync(target).size,
    ms: performance.now() - started,
    views: views.map((v) => v.name),
    mode,
    ...(fullCopyReason ? { fullCopyReason } : {}),
    ...(estimate ? { estimate } : {}),
    ...(staleWal ? { staleWal } : {}),
  };
}

/** Where to prune to: a lake further behind than a full copy's worth of entries is rewritten whole anyway. */
function keptFrom(published: bigint, lake: bigint | undefined): bigint {
  if (lake === undefined || lake >= published || published - lake > BigInt(MAX_INCREMENTAL_ENTRIES)) return published;
  return lake;
}

/** The working file's origin, migrations and journal head: what a publish marker and the lake's manifest record. */
export async function publishPosition(connection: DuckDBConnection): Promise<LakePosition> {
  const journalSeq = await journalHead(connection);
  return {
    origin: await originOf(connection),
    schema: await ledgerChecksum(connection),
    journalSeq,
    headEntry: await journalEntryId(connection, journalSeq),
  };
}

/**
 * Prices both ways at this file's measured rates (publish-cost.ts): `reason` why the whole file is copied, undefined
 * when updating the copy is cheaper or cannot be priced (updateCopy decides). test/warehouse/publish-cost.int.test.ts.
 */
async function priceWays(
  connection: DuckDBConnection,
  working: string,
  target: string,
  clone: string | undefined,
  pricedFromMb: number,
): Promise<{ reason?: string | undefined; estimate?: PublishEstimate | undefined }> {
  // Counted before read: the journal of a long backfill is not held in memory only to be refused.
  const length = await journalLength(connection);
  if (length > MAX_INCREMENTAL_ENTRIES)
    return { reason: `${length} changes since the last publish; a full copy is cheaper` };
  const workingPath = await databasePath(connection, working);
  const megabytes = (path: string) => (existsSync(path) ? statSync(path).size / 2 ** 20 : 0);
  if (!workingPath) return {};
  const workingMb = megabytes(workingPath) + megabytes(`${workingPath}.wal`);
  if (workingMb < pricedFromMb) return {};
  const tail = await journalTail(connection);
  // The oldest entry is the one the last publish ended with: the copy holds it already.
  const entries = tail === undefined ? [] : await readJournal(connection, tail);
  let probe: ChangesProbe;
  try {
    probe = await probeChanges(connection, entries, await readCatalog(connection));
  } catch {
    // Whatever stops the probe (a table or column gone, a scope of another type) stops applying the journal too:
    // updateCopy meets it there and says why, and the full copy follows.
    return {};
  }
  const estimate = estimatePublish({
    ...probe,
    workingMb,
    cloneMb: clone ? 0 : megabytes(target),
    rates: await readPublishRates(connection),
  });
  if (estimate.fullMs >= estimate.incrementalMs) return { estimate };
  const reason = `a full copy is cheaper: ~${Math.round(estimate.fullMs)} ms against ~${Math.round(estimate.incrementalMs)} ms to bring the copy up to date (${probe.rows.toLocaleString('en-US')} rows)`;
  return { reason, estimate };
}

async function databasePath(connection: DuckDBConnection, database: string): Promise<string | undefined> {
  const path = await readValue(connection, 'SELECT path FROM duckdb_databases() WHERE database_name = $1', [database]);
  return typeof path === 'string' && path ? path : undefined;
}

/**
 * Moves the published file's WAL aside before the new file takes its name, and returns where (undefined if none).
 * DuckDB replays `<file>.wal` onto whatever file has that name next. test/warehouse/publish-incremental.int.test.ts.
 */
function setAsideWal(target: string): string | undefined {
  const wal = `${target}.wal`;
  if (!existsSync(wal)) return undefined;
  const aside = `${wal}.replaced-${new Date().toISOString().replace(/[-:.]/g, '')}`;
  renameSync(wal, aside);
  return aside;
}

/**
 * Attaches `file` (made by `prepare` first, when given), runs `work` on it, checkpoints and detaches it. `prepare`
 * copies off the event loop, so the writer lease's renewal and the Redis outage watch keep running.
 */
async function attached(
  connection: DuckDBConnection,
  file: string,
  work: () => Promise<void>,
  prepare?: () => Promise<void>,
): Promise<void> {
  await prepare?.();
  await connection.run(`ATTACH ${quoteLiteral(file)} AS ${PUBLISH_ALIAS}`);
  try {
    await work();
    await connection.run(`CHECKPOINT ${PUBLISH_ALIAS}`);
  } finally {
    await connection.run(`DETACH ${PUBLISH_ALIAS}`);
  }
}

/**
 * The working file as it is on disk once checkpointed, copied byte for byte: `COPY FROM DATABASE` would rebuild every
 * index in memory. Only the single writer's connection writes the file, and it is busy here, so nothing changes it.
 */
async function checkpointedFile(connection: DuckDBConnection, working: string): Promise<string | undefined> {
  await connection.run('CHECKPOINT');
  const path = await databasePath(connection, working);
  if (!path || !existsSync(path)) return undefined;
  // Whatever is still in the WAL would be missing from the copy.
  if (existsSync(`${path}.wal`) && statSync(`${path}.wal`).size > 0) return undefined;
  return path;
}

async function fullCopy(
  connection: DuckDBConnection,
  working: string,
  views: SqlFile[],
  marker: Marker,
): Promise<void> {
  const tables = await readValue(
    connection,
    `SELECT count(*) FROM duckdb_tables() WHERE database_name = '${PUBLISH_ALIAS}'`,
  );
  // Attached to a byte copy of the working file already (see publishCopy), or to an empty file to copy into.
  if (Number(tables) === 0) await connection.run(`COPY FROM DATABASE ${quoteIdent(working)} TO ${PUBLISH_ALIAS}`);
  for (const table of WORKING_FILE_ONLY)
    await connection.run(`DROP TABLE IF EXISTS ${PUBLISH_ALIAS}.main.${quoteIdent(table)}`);
  await connection.run(`DROP SEQUENCE IF EXISTS ${PUBLISH_ALIAS}.main.${quoteIdent(JOURNAL_SEQUENCE)}`);
  await connection.run(
    `CREATE OR REPLACE TABLE ${PUBLISH_ALIAS}.main.${MARKER_TABLE} (origin VARCHAR, journal_seq BIGINT, schema_version INTEGER, views VARCHAR,
       published_at TIMESTAMPTZ, head_entry VARCHAR, schema VARCHAR)`,
  );
  await writeMarker(connection, marker);
  await connection.run(`USE ${PUBLISH_ALIAS}`);
  try {
    for (const view of views) {
      try {
        await connection.run(view.text);
      } catch (error) {
        throw new WarehouseError('query_failed', `view ${view.name}: ${(error as Error).message}`, { cause: error });
      }
    }
  } finally {
    await connection.run(`USE ${quoteIdent(working)}`);
  }
}

/**
 * Applies the journal since the copy's marker to the attached clone in one transaction; `writtenSince`
 * (published-identity.ts) is told after the marker's causes, which are likelier (another file's copy, a backup).
 */
async function updateCopy(connection: DuckDBConnection, marker: Marker, writtenSince: boolean): Promise<void> {
  const previous = await readMarker(connection);
  if (!previous) throw new FullCopyNeeded('the published copy has no publish marker (made by an older bvsync)');
  if (previous.origin !== marker.origin)
    throw new FullCopyNeeded('the published copy was made from another working file');
  if (previous.schema === undefined) throw new FullCopyNeeded('the published copy was made by an older bvsync');
  if (previous.schema !== marker.schema)
    throw new FullCopyNeeded(
      `migrations ran since the published copy was made (schema ${previous.schemaVersion} -> ${marker.schemaVersion}${previous.schemaVersion === marker.schemaVersion ? ', one below the newest' : ''})`,
    );
  if (previous.views !== marker.views) throw new FullCopyNeeded('the views changed since the published copy was made');
  if (previous.journalSeq > marker.journalSeq)
    throw new FullCopyNeeded("the published copy is ahead of the working file's journal");
  // A copy older than the last publish (put back from a backup) misses entries that publish pruned.
  const tail = await journalTail(connection);
  if (tail !== undefined && tail > previous.journalSeq + 1n)
    throw new FullCopyNeeded('the journal no longer reaches back to the published copy');
  // The same numbers, not the same file: a working file put back from a backup (or made of the published copy) numbers
  // its new changes as ones the copy already holds.
  if (previous.journalSeq > 0n && (await journalEntryId(connection, previous.journalSeq)) !== previous.headEntry)
    throw new FullCopyNeeded(
      "the working file's journal does not hold the change the published copy ends with (was the working file put back from a backup?)",
    );
  if (writtenSince)
    throw new FullCopyNeeded(
      "the published copy was written to since bvsync published it (opened read-write?); its changes are not the warehouse's",
    );
  if ((await journalLength(connection, previous.journalSeq)) > MAX_INCREMENTAL_ENTRIES)
    throw new FullCopyNeeded(`over ${MAX_INCREMENTAL_ENTRIES} changes since the last publish; a full copy is cheaper`);
  const entries = await readJournal(connection, previous.journalSeq);
  const catalog = await readCatalog(connection);
  // Any failure to apply (a key collision, a type the copy no longer has) is answered by the full copy, which
  // does not depend on the previous copy at all.
  const failure = (error: unknown) =>
    error instanceof FullCopyNeeded
      ? error
      : new FullCopyNeeded(`applying the journal failed: ${(error as Error).message}`);
  await inTransaction(connection, { failure }, async () => {
    await applyJournal(connection, PUBLISH_ALIAS, entries, catalog);
    await writeMarker(connection, marker);
    const differing = await differingTables(connection, PUBLISH_ALIAS, catalog);
    if (differing.length)
      throw new FullCopyNeeded(`row counts differ after applying the journal in ${differing.join(', ')}`);
  });
}

/** A marker as a copy holds it: one made by an older bvsync has no ledger checksum. */
type StoredMarker = Omit<Marker, 'schema'> & { schema: string | undefined };

async function readMarker(connection: DuckDBConnection): Promise<StoredMarker | undefined> {
  const exists = await readValue(
    connection,
    `SELECT count(*) FROM duckdb_tables() WHERE database_name = '${PUBLISH_ALIAS}' AND schema_name = 'main' AND table_name = '${MARKER_TABLE}'`,
  );
  if (Number(exists) === 0) return undefined;
  // Every column by name: a copy made by an older bvsync lacks the later ones.
  const reader = await connection.runAndReadAll(`SELECT * FROM ${PUBLISH_ALIAS}.main.${MARKER_TABLE}`);
  const row = reader.getRowObjectsJS()[0];
  if (!row) return undefined;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    origin: String(row.origin),
    journalSeq: BigInt(row.journal_seq as bigint),
    headEntry: text(row.head_entry),
    schemaVersion: Number(row.schema_version),
    schema: text(row.schema),
    views: String(row.views),
  };
}

async function writeMarker(connection: DuckDBConnection, marker: Marker): Promise<void> {
  await connection.run(`DELETE FROM ${PUBLISH_ALIAS}.main.${MARKER_TABLE}`);
  await connection.run(
    `INSERT INTO ${PUBLISH_ALIAS}.main.${MARKER_TABLE} (origin, journal_seq, schema_version, views, published_at, head_entry, schema)
     VALUES ($1, $2, $3, $4, current_timestamp, $5, $6)`,
    [marker.origin, marker.journalSeq, marker.schemaVersion, marker.views, marker.headEntry ?? null, marker.schema],
  );
}

/** The migration ledger's versions and checksums, hashed. */
async function ledgerChecksum(connection: DuckDBConnection): Promise<string> {
  const reader = await connection.runAndReadAll('SELECT version, checksum FROM main._migrations ORDER BY version');
  return checksumOf(reader.getRowsJS().map(([version, checksum]) => `${String(version)}:${String(checksum)}`));
}

/**
 * Drops a publish marker from a working file made from a published copy: only published copies carry one, and a full
 * copy creates its own. test/warehouse/publish-incremental.int.test.ts.
 */
export async function dropPublishMarker(connection: DuckDBConnection): Promise<void> {
  await connection.run(`DROP TABLE IF EXISTS main.${MARKER_TABLE}`);
}

/**
 * What tells one working file from another: when its first migration was applied. A working file deleted and made
 * again starts its journal over, so its entries must never be taken for ones an older copy already holds.
 */
async function originOf(connection: DuckDBConnection): Promise<string> {
  const origin = await readValue(
    connection,
    'SELECT applied_at::VARCHAR FROM main._migrations ORDER BY version LIMIT 1',
  );
  return String(origin ?? 'empty');
}

function checksumOf(parts: readonly string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex');
}

function temporaryPath(target: string): string {
  return `${target}.tmp-${randomBytes(6).toString('hex')}`;
}

function removeCopy(temporary: string): void {
  rmSync(temporary, { force: true });
  rmSync(`${temporary}.wal`, { force: true });
}

/**
 * Copies left by a publish that died half-way, or a clone prepared for a run that never published; only the single
 * writer publishes, so none but `keep` (this publish's prepared clone) is in use.
 */
function removeStaleCopies(target: string, keep?: string): void {
  const prefix = `${basename(target)}.tmp-`;
  const kept = keep ? [keep, `${keep}.wal`] : [];
  for (const name of readdirSync(dirname(target))) {
    const path = join(dirname(target), name);
    if (name.startsWith(prefix) && !kept.includes(path)) rmSync(path, { force: true });
  }
}

/**
 * The prepared clone's path when whole and of the published file as it is now, else removed: a clone of a file replaced
 * since would be brought up to date from a journal already pruned past it.
 */
async function usableClone(prepared: PreparedClone | undefined, target: string): Promise<string | undefined> {
  if (!prepared) return undefined;
  const whole = await prepared.done;
  const current = whole && prepared.target === target && existsSync(target) && identityOf(target) === prepared.from;
  // Gone when a publish elsewhere (the lease moved meanwhile) cleared it away as a stale copy.
  if (current && existsSync(prepared.path)) return prepared.path;
  removeCopy(prepared.path);
  return undefined;
}
