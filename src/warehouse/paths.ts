import { dirname, basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder of numbered DDL files, shipped with the package. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../sql/migrations/', import.meta.url));
/** The analyst views, created in every published copy in name order. */
export const VIEWS_DIR = fileURLToPath(new URL('../../sql/views/', import.meta.url));

/**
 * The single writer's working file beside the published one (`data/bv.duckdb` -> `data/bv.work.duckdb`): a
 * DuckDB file open for writing cannot be opened by another process, and a reader would block the writer.
 */
export function workingPathFor(publishedPath: string): string {
  const ext = extname(publishedPath);
  const stem = basename(publishedPath, ext);
  return join(dirname(publishedPath), `${stem}.work${ext || '.duckdb'}`);
}
