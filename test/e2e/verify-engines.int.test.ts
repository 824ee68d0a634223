import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eachDay } from '../../src/days.js';
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
 * `bvsync verify` with per-engine visibility rows (the `visibility_by_engine` stream's table, migration 009): one
 * request per engine over the window, compared with the per-engine daily rows, and the day named when one engine's
 * row of one day is wrong. The rows are written here from the simulator's answers into a copy of the file, so the
 * comparison is tested whether or not that stream is in this checkout.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-15';
const TO = '2026-11-19';
const WRONG_DAY = '2026-11-18';
const STREAMS = ['visibility', 'competitors', 'tracked_urls', 'conversations', 'citations', 'product_ranking'];

let fx: EngineFixture;
let brandId: number;

async function withFile<T>(path: string, use: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    return await use(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** A copy of the file with per-engine visibility rows of the brand's engines, counted from the simulator's answers. */
async function copyWithEngineRows(name: string): Promise<string> {
  const copy = join(fx.dir, name);
  copyFileSync(fx.config.db, copy);
  const engines = new Set<string>(fx.sim.truth.world(brandId).brand.engines);
  await withFile(copy, async (connection) => {
    // The table of migration 009 where this checkout has it (with its bookkeeping columns), else its columns read here.
    await connection.run(`CREATE TABLE IF NOT EXISTS visibility_topic_engine_daily (
      brand_id BIGINT NOT NULL, "day" DATE NOT NULL, engine VARCHAR NOT NULL, topic_id BIGINT NOT NULL,
      conversations INTEGER, mentioned_conversations INTEGER)`);
    await connection.run('DELETE FROM visibility_topic_engine_daily WHERE brand_id = $1', [brandId]);
    const bookkeeping = await connection.runAndReadAll(
      `SELECT 1 FROM duckdb_columns() WHERE table_name = 'visibility_topic_engine_daily' AND column_name = '_run_id'`,
    );
    const [extraColumns, extraValues] =
      bookkeeping.currentRowCount > 0 ? [', _synced_at, _run_id', ", now(), 'verify-test'"] : ['', ''];
    for (const day of eachDay(FROM, TO)) {
      // As the stream's sync leaves them: verify compares only the streams a brand's slices were synced of.
      await connection.run(
        `INSERT OR REPLACE INTO _sync_state (brand_id, stream, slice_key, "day", status, updated_at, completed_at) VALUES ($1, 'visibility_by_engine', $2, $2::DATE, 'complete', now(), now())`,
        [brandId, day],
      );
      const counts = new Map<string, { conversations: number; mentioned: number }>();
      for (const answer of fx.sim.truth.answers(brandId, day)) {
        if (!engines.has(answer.engine)) continue;
        const key = `${answer.engine}|${answer.topicId}`;
        const entry = counts.get(key) ?? { conversations: 0, mentioned: 0 };
        entry.conversations++;
        if (answer.mentioned) entry.mentioned++;
        counts.set(key, entry);
      }
      for (const [key, entry] of counts) {
        const [engine, topicId] = key.split('|');
        await connection.run(
          `INSERT INTO visibility_topic_engine_daily (brand_id, "day", engine, topic_id, conversations, mentioned_conversations${extraColumns})
           VALUES ($1, $2::DATE, $3, $4, $5, $6${extraValues})`,
          [brandId, day, engine!, Number(topicId), entry.conversations, entry.mentioned],
        );
      }
    }
  });
  return copy;
}

async function verify(
  db: string,
  config: Record<string, unknown> = {},
  args: string[] = [],
): Promise<{ code: number | null; report: VerifyReport }> {
  const result = await runBvsync(
    ['verify', '--config', writeCliConfig(fx, config), '--from', FROM, '--to', TO, '--db', db, '--json', ...args],
    cliEnv(fx),
  );
  expect(result.stderr).toBe('');
  return { code: result.code, report: JSON.parse(result.stdout) as VerifyReport };
}

beforeAll(async () => {
  fx = await engineFixture('verify-engines', { sim: { brands: 1 }, config: { sync: { fetchConcurrency: 8 } } });
  brandId = fx.config.brands[0]!;
  expect(
    (await runInProcess(fx, { kind: 'backfill', today: TODAY, from: FROM, to: TODAY, streams: STREAMS })).meta.status,
  ).toBe('complete');
}, 180_000);
afterAll(async () => fx?.cleanup());

describe('bvsync verify per engine', () => {
  it("compares each engine's visibility over the window, one request per engine, and agrees", async () => {
    const copy = await copyWithEngineRows('engines.duckdb');
    fx.sim.clearRequestLog();
    const { code, report } = await verify(copy);
    expect(code).toBe(0);
    const engines = fx.sim.truth.world(brandId).brand.engines;
    const perEngine = report.brands[0]!.figures.filter((entry) => entry.family === 'visibility_by_engine');
    expect(perEngine.filter((entry) => !entry.detail).map((entry) => entry.figure)).toEqual(
      [...engines]
        .sort()
        .flatMap((engine) => [
          `engine ${engine}: answers, every topic`,
          `engine ${engine}: answers mentioning the brand, every topic`,
        ]),
    );
    expect(perEngine.every((entry) => entry.agree && Number(entry.api) >= 0)).toBe(true);
    expect(perEngine.some((entry) => Number(entry.api) > 0)).toBe(true);
    const engineRequests = fx.sim
      .requestLog()
      .filter((entry) => entry.path.endsWith('/reports/visibility/topics') && entry.query.engines !== undefined);
    expect(engineRequests.map((entry) => String(entry.query.engines)).sort()).toEqual([...engines].sort());
    expect(report.calls.total).toBe(5 + engines.length);
  });

  it('names a day whose per-engine rows are missing altogether, as a day to backfill', async () => {
    const copy = await copyWithEngineRows('engines-missing-day.duckdb');
    await withFile(copy, (connection) =>
      connection.run('DELETE FROM visibility_topic_engine_daily WHERE brand_id = $1 AND "day" = $2::DATE', [
        brandId,
        WRONG_DAY,
      ]),
    );
    const { code, report } = await verify(copy);
    expect(code).toBe(1);
    const brand = report.brands[0]!;
    // Before, the engines were those of the window's rows: the day alone had none, so it agreed, and its window could not be divided.
    expect(brand.daysToBackfill).toEqual([WRONG_DAY]);
    expect(brand.undivided).toEqual([]);
    expect(
      brand.figures.filter((entry) => !entry.agree).every((entry) => entry.family === 'visibility_by_engine'),
    ).toBe(true);

    // A half costs a request per engine: measured on the last request left, the narrowing overran --max-calls.
    const engines = fx.sim.truth.world(brandId).brand.engines.length;
    const limit = engines * 2 + 1;
    const bounded = await verify(copy, {}, ['--max-calls', String(limit)]);
    expect(bounded.report.calls.narrowing).toBeGreaterThan(0);
    expect(bounded.report.calls.narrowing).toBeLessThanOrEqual(limit);
    expect(bounded.report.brands[0]!.unresolved.length).toBeGreaterThan(0);
  });

  it('asks only the engines of sync.engineBreakdown where it is set: an engine left out since is not missing', async () => {
    const copy = await copyWithEngineRows('engines-breakdown.duckdb');
    const [kept, dropped] = [...fx.sim.truth.world(brandId).brand.engines].sort();
    // The dropped engine's rows stay on the first day only, as when it was taken out of sync.engineBreakdown after it.
    await withFile(copy, (connection) =>
      connection.run(
        'DELETE FROM visibility_topic_engine_daily WHERE brand_id = $1 AND engine = $2 AND "day" > $3::DATE',
        [brandId, dropped!, FROM],
      ),
    );
    fx.sim.clearRequestLog();
    const { code, report } = await verify(copy, { sync: { engineBreakdown: [kept] } });
    expect(code).toBe(0);
    const perEngine = report.brands[0]!.figures.filter((entry) => entry.family === 'visibility_by_engine');
    expect(
      perEngine.every(
        (entry) => entry.figure.startsWith(`engine ${kept}:`) || entry.figure.startsWith(`engine ${kept} topic`),
      ),
    ).toBe(true);
    const engineRequests = fx.sim
      .requestLog()
      .filter((entry) => entry.path.endsWith('/reports/visibility/topics') && entry.query.engines !== undefined);
    expect(engineRequests.map((entry) => String(entry.query.engines))).toEqual([kept]);
  });

  it("names the day of one engine's wrong row", async () => {
    const copy = await copyWithEngineRows('engines-wrong.duckdb');
    const engine = fx.sim.truth.world(brandId).brand.engines[0]!;
    const changed = await withFile(copy, async (connection) => {
      const result = await connection.run(
        `UPDATE visibility_topic_engine_daily SET conversations = conversations + 1
         WHERE brand_id = $1 AND "day" = $2::DATE AND engine = $3 AND topic_id = (SELECT min(topic_id) FROM visibility_topic_engine_daily WHERE brand_id = $1 AND "day" = $2::DATE AND engine = $3)`,
        [brandId, WRONG_DAY, engine],
      );
      return Number(result.rowsChanged);
    });
    expect(changed).toBe(1);
    const { code, report } = await verify(copy);
    expect(code).toBe(1);
    const brand = report.brands[0]!;
    expect(
      brand.figures.filter((entry) => !entry.agree).every((entry) => entry.family === 'visibility_by_engine'),
    ).toBe(true);
    expect(brand.daysToBackfill).toEqual([WRONG_DAY]);
  });
});
