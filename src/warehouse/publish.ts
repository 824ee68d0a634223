import { randomBytes } from 'node:crypto';
import { readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { makeFolder } from '../make-folder.js';
import { VIEWS_DIR } from './paths.js';
import { readNumberedSqlFiles } from './sql-files.js';
import { quoteIdent, quoteLiteral } from './sql-names.js';
import { WarehouseError } from './warehouse-error.js';

export interface PublishOptions {
  /** Folder of `NNN_name.sql` view files created in the copy, in name order; default the package's `sql/views/`. */
  viewsDir?: string;
}

export interface PublishResult {
  path: string;
  bytes: number;
  ms: number;
  views: string[];
}

const PUBLISH_ALIAS = 'bvsync_publish';

/**
 * Writes a consistent copy of the working database to a fresh file beside the published one, creates the
 * analyst views in it, checkpoints it, and renames it over the published file. The rename is atomic: an
 * analyst who has the old file open keeps reading their snapshot, and the next open sees the new one. The
 * writer never opens the published file, so a reader cannot block it.
 */
export async function publishCopy(
  connection: DuckDBConnection,
  publishedPath: string,
  options: PublishOptions = {},
): Promise<PublishResult> {
  const started = performance.now();
  const target = resolve(publishedPath);
  makeFolder(dirname(target), `the published database ${target}`);
  removeStaleCopies(target);
  const temporary = `${target}.tmp-${randomBytes(6).toString('hex')}`;
  const views = readNumberedSqlFiles(options.viewsDir ?? VIEWS_DIR);
  const working = await currentDatabase(connection);

  let attached = false;
  try {
    await connection.run(`ATTACH ${quoteLiteral(temporary)} AS ${PUBLISH_ALIAS}`);
    attached = true;
    await connection.run(`COPY FROM DATABASE ${quoteIdent(working)} TO ${PUBLISH_ALIAS}`);
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
    await connection.run(`CHECKPOINT ${PUBLISH_ALIAS}`);
    await connection.run(`DETACH ${PUBLISH_ALIAS}`);
    attached = false;
    renameSync(temporary, target);
  } catch (error) {
    if (attached) await connection.run(`DETACH ${PUBLISH_ALIAS}`).catch(() => undefined);
    rmSync(temporary, { force: true });
    rmSync(`${temporary}.wal`, { force: true });
    throw error;
  }
  return { path: target, bytes: statSync(target).size, ms: performance.now() - started, views: views.map((v) => v.name) };
}

/** Copies left by a publish that died half-way; only the single writer publishes, so none is in use. */
function removeStaleCopies(target: string): void {
  const prefix = `${basename(target)}.tmp-`;
  for (const name of readdirSync(dirname(target))) {
    if (name.startsWith(prefix)) rmSync(join(dirname(target), name), { force: true });
  }
}

async function currentDatabase(connection: DuckDBConnection): Promise<string> {
  const reader = await connection.runAndReadAll('SELECT current_database()');
  return String(reader.getRowsJS()[0]![0]);
}
