import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { readManifest } from '../../warehouse/publish/parquet-lake.js';
import { identityOf } from '../../warehouse/publish/published-identity.js';

/** What `status` says of the Parquet lake (`publish.parquet`, docs/lake.md). */
export interface LakeStatus {
  path: string;
  /** Whether the manifest was written for the published file as it is now. */
  current: boolean;
  writtenAt: string | null;
  tables: number;
  partitions: number;
  rows: number;
}

/** The lake at `folder` against the published file at `publishedPath`; null when no lake is configured. */
export function lakeStatus(folder: string | undefined, publishedPath: string): LakeStatus | null {
  if (!folder) return null;
  const manifest = readManifest(folder);
  const tables = Object.values(manifest?.tables ?? {});
  return {
    path: resolve(folder),
    current: manifest !== undefined && existsSync(publishedPath) && manifest.publishId === identityOf(publishedPath),
    writtenAt: manifest?.writtenAt ?? null,
    tables: tables.length,
    partitions: tables.reduce((sum, table) => sum + Object.keys(table.partitions).length, 0),
    rows: tables.reduce((sum, table) => sum + table.rows, 0),
  };
}

/** One line: the lake is current, or behind the published file and where to read why. */
export function lakeLine(lake: LakeStatus): string {
  if (!lake.writtenAt)
    return `Parquet lake: ${lake.path} has no manifest yet; the next publish writes it (docs/lake.md)`;
  const held = `${lake.tables} tables, ${lake.partitions} partitions, ${lake.rows} rows, written ${lake.writtenAt.slice(0, 19)}`;
  if (lake.current) return `Parquet lake: ${lake.path} is current with the published file (${held})`;
  return (
    `Parquet lake: ${lake.path} is behind the published file (${held}): its last write failed, ` +
    'the writer\'s log says why ("the Parquet lake could not be written"); the next publish repairs it (docs/lake.md)'
  );
}
