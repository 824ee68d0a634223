import { renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { openReadOnly } from '../warehouse/published-database.js';
import { readReportData, type ReportData, type ReportOptions } from './report-data.js';
import { renderReportHtml } from './report-html.js';

export interface BuildReportOptions extends ReportOptions {
  /** The published DuckDB file (opened read-only, so a running sync is never disturbed). */
  db: string;
  /** Where the HTML page goes. */
  out: string;
}

/** Writes the analysts' HTML report from the published database; returns where it went, its size and its data. */
export async function buildReport(options: BuildReportOptions): Promise<{ path: string; bytes: number; data: ReportData }> {
  const db = await openReadOnly(options.db);
  let data: ReportData;
  try {
    data = await readReportData(db.connection, db.path, options);
  } finally {
    db.close();
  }
  const html = renderReportHtml(data);
  const path = resolve(options.out);
  // Written beside and renamed, so a browser refreshing the page never reads half a file.
  const partial = `${path}.partial`;
  writeFileSync(partial, html);
  renameSync(partial, path);
  return { path, bytes: Buffer.byteLength(html), data };
}
