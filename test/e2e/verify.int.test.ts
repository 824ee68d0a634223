import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerifyReport } from '../../src/verify/verify-warehouse.js';
import {
  cliEnv,
  engineFixture,
  runBvsync,
  runInProcess,
  writeCliConfig,
  type EngineFixture,
} from '../support/engine.js';

/**
 * `bvsync verify` against the simulator: it agrees with a clean backfill, and when the rows of one day are deleted
 * from a copy of the file it names that day (and only that brand's), with the backfill that mends it.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-14';
// Today is left out: the simulator, like the API, still adds answers to it.
const TO = '2026-11-19';
const DELETED_DAY = '2026-11-17';
const STREAMS = ['visibility', 'competitors', 'tracked_urls', 'conversations', 'citations', 'product_ranking'];

let fx: EngineFixture;

async function verify(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runBvsync(['verify', '--config', writeCliConfig(fx), '--from', FROM, '--to', TO, ...args], cliEnv(fx));
}

/** Deletes every row dated `day` of one brand from every data table of a DuckDB file. */
async function deleteDay(path: string, brandId: number, day: string): Promise<number> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    const tables = await connection.runAndReadAll(
      `SELECT table_name FROM duckdb_columns() WHERE column_name = 'day' AND NOT starts_with(table_name, '_') AND table_name IN (SELECT table_name FROM duckdb_tables())`,
    );
    let deleted = 0;
    for (const [table] of tables.getRows()) {
      const result = await connection.run(`DELETE FROM "${String(table)}" WHERE brand_id = $1 AND "day" = $2::DATE`, [
        brandId,
        day,
      ]);
      deleted += Number(result.rowsChanged);
    }
    return deleted;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

beforeAll(async () => {
  fx = await engineFixture('verify', { config: { sync: { fetchConcurrency: 8 } } });
  const progress = await runInProcess(fx, { kind: 'backfill', today: TODAY, from: FROM, to: TODAY, streams: STREAMS });
  expect(progress.meta.status).toBe('complete');
}, 180_000);
afterAll(async () => fx?.cleanup());

describe('bvsync verify', () => {
  it('agrees with a clean backfill, in one request per figure family and brand', async () => {
    fx.sim.clearRequestLog();
    const result = await verify(['--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as VerifyReport;
    expect(report.agree).toBe(true);
    expect(report.window).toEqual({ from: FROM, to: TO });
    expect(report.brands.map((brand) => brand.brandId)).toEqual(fx.config.brands);
    for (const brand of report.brands) {
      const families = new Set(brand.figures.map((entry) => entry.family));
      expect([...families]).toEqual(['conversations', 'visibility', 'tracked_urls', 'citations', 'product_ranking']);
      // Non-zero numbers on both sides, so agreeing is not two empty sides.
      expect(brand.figures.find((entry) => entry.family === 'conversations')!.api).toBeGreaterThan(100);
      expect(brand.figures.filter((entry) => entry.figure.endsWith(': rank')).length).toBeGreaterThan(0);
      expect(brand.figures.filter((entry) => entry.figure.startsWith('page ')).length).toBeGreaterThan(0);
      expect(brand.daysToBackfill).toEqual([]);
      expect(brand.notSynced).toEqual(['visibility_by_engine']);
    }
    const requests = fx.sim.requestLog().filter((entry) => entry.path.startsWith('/customer/v1/'));
    expect(requests).toHaveLength(report.calls.total);
    expect(report.calls.total).toBe(5 * fx.config.brands.length);
    expect(report.calls.narrowing).toBe(0);
    for (const request of requests) expect([request.query.start_date, request.query.end_date]).toEqual([FROM, TO]);
  });

  it('prints the table of totals and says it agrees, without the key; --all lists every figure', async () => {
    const result = await verify([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/family.*figure.*API.*warehouse.*agree/);
    expect(result.stdout).toMatch(/visibility\s*│ answers, every topic\s*│/);
    expect(result.stdout).not.toMatch(/│ page \d+: answers citing it/);
    expect(result.stdout).toMatch(
      /\d+ more figures \(per topic, page, ownership and product\) agree; --all lists them/,
    );
    expect(result.stdout).toContain('Every figure agrees');
    expect(result.stdout).toMatch(/API calls: 10 \(10 for the whole window/);
    expect(result.stdout + result.stderr).not.toContain(fx.sim.apiKey);
    const all = await verify(['--all']);
    expect(all.stdout).toMatch(/│ page \d+: answers citing it/);
    expect(all.stdout).not.toContain('--all lists them');
  });

  it('names the day whose rows were deleted from a copy of the file, for that brand only, and exits 1', async () => {
    const copy = join(fx.dir, 'copy.duckdb');
    copyFileSync(fx.config.db, copy);
    const [damaged, intact] = fx.config.brands as [number, number];
    expect(await deleteDay(copy, damaged, DELETED_DAY)).toBeGreaterThan(100);
    const result = await verify(['--db', copy, '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as VerifyReport;
    expect(report.agree).toBe(false);
    const byBrand = new Map(report.brands.map((brand) => [brand.brandId, brand]));
    expect(byBrand.get(damaged)!.daysToBackfill).toEqual([DELETED_DAY]);
    expect(byBrand.get(damaged)!.unresolved).toEqual([]);
    expect(byBrand.get(intact)!.daysToBackfill).toEqual([]);
    expect(byBrand.get(intact)!.figures.every((entry) => entry.agree)).toBe(true);
    const answers = byBrand.get(damaged)!.figures.find((entry) => entry.family === 'conversations')!;
    expect(answers.api! - answers.warehouse!).toBe(fx.sim.truth.answers(damaged, DELETED_DAY).length);
    // Every family disagreed and was halved down to the day: 6 days take 2 + 2 + 2 requests at most per family.
    expect(report.calls.narrowing).toBeGreaterThan(0);
    expect(report.calls.narrowing).toBeLessThanOrEqual(5 * 6);

    const text = await verify(['--db', copy]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`bvsync backfill --brand ${damaged} --from ${DELETED_DAY} --to ${DELETED_DAY}`);
    expect(text.stdout).not.toContain(`--brand ${intact} `);
    expect(text.stdout).toMatch(/\bNO\b/);
  });

  it('does not compare a stream the warehouse never synced for a brand: its figures had all disagreed and spent the narrowing', async () => {
    const copy = join(fx.dir, 'never-synced.duckdb');
    copyFileSync(fx.config.db, copy);
    const instance = await DuckDBInstance.create(copy);
    const connection = await instance.connect();
    try {
      for (const table of ['tracked_url_daily', 'tracked_url_daily_totals', 'tracked_urls'])
        await connection.run(`DELETE FROM ${table}`);
      await connection.run(`DELETE FROM _sync_state WHERE stream = 'tracked_urls'`);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    fx.sim.clearRequestLog();
    const result = await verify(['--db', copy, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as VerifyReport;
    expect(report.agree).toBe(true);
    for (const brand of report.brands) {
      expect(brand.notSynced).toEqual(['visibility_by_engine', 'tracked_urls']);
      expect(brand.figures.some((entry) => entry.family === 'tracked_urls')).toBe(false);
    }
    expect(report.calls.total).toBe(4 * fx.config.brands.length);
    const text = await verify(['--db', copy]);
    expect(text.stdout).toContain(
      `Brand ${fx.config.brands[0]}: not compared, never synced for it: visibility_by_engine, tracked_urls.`,
    );
  });

  it('with no budget to narrow down, names the whole window to backfill and says how to name the days', async () => {
    const copy = join(fx.dir, 'copy-budget.duckdb');
    copyFileSync(fx.config.db, copy);
    const [damaged] = fx.config.brands as [number];
    await deleteDay(copy, damaged, DELETED_DAY);
    const result = await verify(['--db', copy, '--max-calls', '0']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `bvsync backfill --brand ${damaged} --from ${FROM} --to ${TO}   (not narrowed down to days: raise --max-calls to name them)`,
    );
  });

  it('refuses a window that ends before it starts, before any request', async () => {
    fx.sim.clearRequestLog();
    const result = await runBvsync(['verify', '--config', writeCliConfig(fx), '--from', TO, '--to', FROM], cliEnv(fx));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--from ${TO} is after --to ${FROM}`);
    expect(fx.sim.requestLog()).toEqual([]);
  });

  it('names the API address and the setting when nothing answers there, exit 1', async () => {
    const result = await runBvsync(
      ['verify', '--config', writeCliConfig(fx), '--from', FROM, '--to', TO],
      cliEnv(fx, { BVSYNC_API_URL: 'http://127.0.0.1:9' }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach the API at http://127.0.0.1:9: ECONNREFUSED; check BVSYNC_API_URL');
  });

  it('a refused key or a brand the key cannot read: exit 2 with what to check, never the key', async () => {
    const wrongKey = 'bvk_wrong_key_for_verify';
    const refused = await runBvsync(
      ['verify', '--config', writeCliConfig(fx), '--from', FROM, '--to', TO],
      cliEnv(fx, { BVSYNC_API_KEY: wrongKey }),
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^bvsync: the API refused the key \(HTTP 401 unauthorized, request [0-9a-f-]+\); nothing was compared\. Check BVSYNC_API_KEY/m,
    );
    expect(refused.stdout + refused.stderr).not.toContain(wrongKey);
    const denied = await verify(['--brand', String(fx.sim.forbiddenBrand)]);
    expect(denied.code).toBe(2);
    expect(denied.stderr).toContain(
      `bvsync: the API key cannot read a brand asked for (GET /customer/v1/brands/${fx.sim.forbiddenBrand}/`,
    );
  });
});
