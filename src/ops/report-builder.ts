import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { errorMessage } from '../format.js';
import { withReadOnly } from '../warehouse/publish/published-database.js';
import { readReportData, type ReportData, type ReportOptions } from './report-data.js';
import { renderReportHtml } from './report-html.js';

export interface BuildReportOptions extends ReportOptions {
  /** The published DuckDB file (opened read-only, so a running sync is never disturbed). */
  db: string;
  /** Where the HTML page goes. */
  out: string;
}

export interface BuiltReport {
  /** Where the page went; null when nothing was written (no brand asked for has data in the window). */
  path: string | null;
  bytes: number;
  data: ReportData;
  /** What the reader should know: brands the database does not hold, brands with no data in the window. */
  warnings: string[];
}

/**
 * Writes the analysts' HTML report from the published database; nothing when no asked brand has data, as zeros mislead.
 * Brands without data are marked and warned of; `bvsync report` exits 1 (docs/operations.md, "Reports for analysts").
 */
export async function buildReport(options: BuildReportOptions): Promise<BuiltReport> {
  const data = await withReadOnly(options.db, (db) => readReportData(db.connection, db.path, options));
  const warnings = reportWarnings(data);
  if (!data.brands.some((brand) => brand.hasData)) return { path: null, bytes: 0, data, warnings };
  const html = renderReportHtml(data);
  const path = resolve(options.out);
  // Written beside and renamed, so a browser refreshing the page never reads half a file.
  const partial = `${path}.partial`;
  try {
    writeFileSync(partial, html);
    renameSync(partial, path);
  } catch (error) {
    // A full disk leaves no half file behind taking the room (test/ops/report.int.test.ts, "full disk").
    rmSync(partial, { force: true });
    throw new Error(
      `could not write the report to ${path} (${errorMessage(error)}); an earlier report there is kept. Free space there or choose another --out`,
      { cause: error },
    );
  }
  return { path, bytes: Buffer.byteLength(html), data, warnings };
}

function reportWarnings(data: ReportData): string[] {
  const held = data.knownBrands.length
    ? `it holds brand${data.knownBrands.length === 1 ? '' : 's'} ${data.knownBrands.join(', ')}`
    : 'it holds no brand yet (run bvsync sync or bvsync demo)';
  const warnings = data.unknownBrands.map(
    (brandId) => `brand ${brandId} is not in ${data.database} (${held}); check --brand`,
  );
  for (const brand of data.brands) {
    if (!brand.hasData) {
      warnings.push(
        `brand ${brand.brandId} has no data between ${data.from} and ${data.to}; pick another window with --from/--to (bvsync status shows the synced days)`,
      );
    }
  }
  if (data.brands.length === 0 && data.unknownBrands.length === 0)
    warnings.push(`${data.database} holds no brand yet: run bvsync sync (or bvsync demo) first`);
  return warnings;
}
