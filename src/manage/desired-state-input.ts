import { checkDesiredState, loadDesiredState } from './load-desired-state.js';
import type { DesiredState } from './desired-state-schema.js';
import { ManageFileError } from './manage-file-error.js';
import { trackedUrlsFromSql } from './tracked-urls-from-sql.js';

export interface DesiredStateInput {
  /** The desired-state file (YAML or JSON). */
  file?: string | undefined;
  /** A query whose rows (url, title, group) are pages to track besides the file's. */
  fromSql?: string | undefined;
  /** The DuckDB file the query runs in; default an in-memory DuckDB. */
  database?: string | undefined;
  /** The brand, when no file names it; must agree with the file's when both do. */
  brand?: number | undefined;
}

/** The desired state from a file, a query, or both; `source` names them for messages and summaries. */
export async function readDesiredState(input: DesiredStateInput): Promise<{ desired: DesiredState; source: string }> {
  if (input.file === undefined && input.fromSql === undefined) {
    throw new ManageFileError('the command line', [
      'give a desired-state file (e.g. examples/brand-1.yaml), --from-sql "select url, title from ...", or both',
    ]);
  }
  const fromFile = input.file === undefined ? undefined : loadDesiredState(input.file);
  if (fromFile && input.brand !== undefined && input.brand !== fromFile.brand) {
    throw new ManageFileError(input.file!, [
      `brand: the file is for brand ${fromFile.brand}, the command line says --brand ${input.brand}; drop --brand or fix the file`,
    ]);
  }
  const brand = fromFile?.brand ?? input.brand;
  if (brand === undefined)
    throw new ManageFileError('the command line', ['--from-sql without a file needs --brand ID']);
  const queried =
    input.fromSql === undefined ? [] : await trackedUrlsFromSql(input.fromSql, { database: input.database });
  const desired = checkDesiredState(
    { ...(fromFile ?? {}), brand, trackedUrls: [...(fromFile?.trackedUrls ?? []), ...queried] },
    input.file ?? '--from-sql',
  );
  const source = [
    input.file,
    input.fromSql !== undefined && `--from-sql (${queried.length} row${queried.length === 1 ? '' : 's'})`,
  ]
    .filter(Boolean)
    .join(' and ');
  return { desired, source };
}
