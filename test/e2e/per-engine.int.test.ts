import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/index.js';
import { productRankingEndpoint, type ProductRankingRow } from '../../src/streams/product-ranking-report.js';
import { visibilityTopicsEndpoint, type VisibilityRow } from '../../src/streams/visibility-report.js';
import { eachDay } from '../../src/days.js';
import type { RunProgress } from '../../src/engine/run/start-run.js';
import { openReadOnly, type ReadOnlyDatabase } from '../../src/warehouse/publish/published-database.js';
import { readRows } from '../../src/warehouse/read-rows.js';
import { engineFixture, runInProcess, type EngineFixture } from '../support/engine.js';

/**
 * Issue #14, per engine: a backfill of the visibility report, its per-engine breakdown, the conversations and the
 * product rankings through the whole engine, then the published copy checked against the API's own answers for
 * engines=[engine] and against the conversations table (v_engine_reconciliation_daily).
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-16';
const TO = '2026-11-18';
const DAYS = eachDay(FROM, TO);
const STREAMS = ['visibility', 'conversations', 'product_ranking', 'visibility_by_engine', 'product_ranking_by_engine'];

let fx: EngineFixture;
let progress: RunProgress;
let db: ReadOnlyDatabase;
let client: ApiClient;
let brandEngines: string[];
const sql = (text: string, params: Array<string | number> = []) => readRows(db.connection, text, params);

beforeAll(async () => {
  fx = await engineFixture('per-engine', { sim: { brands: 1, seed: 11 } });
  progress = await runInProcess(fx, { kind: 'backfill', today: TODAY, from: FROM, to: TO, streams: STREAMS });
  db = await openReadOnly(fx.config.db);
  client = createApiClient(fx.config.api, { retryRateLimited: true });
  brandEngines = [...fx.sim.truth.world(1).brand.engines];
});
afterAll(async () => {
  await client?.close();
  db?.close();
  await fx?.cleanup();
});

describe('per-engine breakdowns against the simulator', () => {
  it('completes every slice, one visibility_by_engine slice per day and brand engine', async () => {
    expect(progress.meta.status).toBe('complete');
    const slices = await sql(
      `SELECT count(*)::INTEGER AS n FROM _sync_state WHERE stream = 'visibility_by_engine' AND status = 'complete'`,
    );
    expect(slices[0]!.n).toBe(DAYS.length * brandEngines.length);
    const ranking = await sql(
      `SELECT count(*)::INTEGER AS n FROM _sync_state WHERE stream = 'product_ranking_by_engine' AND status = 'complete'`,
    );
    expect(ranking[0]!.n).toBe(DAYS.length * brandEngines.length * 4);
  });

  it('keeps the query each visibility slice says it applied, with the brand engines it covers', async () => {
    const echoes = await sql(
      `SELECT "day"::VARCHAR AS day, engines, query FROM _slice_queries WHERE stream = 'visibility' ORDER BY 1`,
    );
    expect(echoes.map((echo) => echo.day)).toEqual(DAYS);
    for (const echo of echoes) {
      expect(echo.engines).toEqual(brandEngines);
      expect(JSON.parse(String(echo.query))).toMatchObject({
        engines: brandEngines,
        start_date: echo.day,
        end_date: echo.day,
      });
    }
    const engines = await sql(
      `SELECT engine, source, is_brand_engine FROM v_engines WHERE source IN ('visibility', 'conversations') ORDER BY ALL`,
    );
    expect(engines.filter((row) => row.source === 'visibility').map((row) => row.engine)).toEqual(
      [...brandEngines].sort(),
    );
    const models = await sql(`SELECT DISTINCT model FROM conversations ORDER BY 1`);
    expect(engines.filter((row) => row.source === 'conversations').map((row) => row.engine)).toEqual(
      models.map((row) => row.model),
    );
    for (const row of engines)
      expect(row.is_brand_engine, String(row.engine)).toBe(brandEngines.includes(String(row.engine)));
  });

  it("per-engine visibility equals the API's answer for engines=[engine], topics, scenarios and brands", async () => {
    for (const day of DAYS) {
      for (const engine of brandEngines) {
        const answer = { records: [] as VisibilityRow[] };
        for await (const page of client.read(visibilityTopicsEndpoint, 1, {
          startDate: day,
          endDate: day,
          engines: [engine],
          includeScenarios: true,
        }))
          answer.records.push(...page.records);
        const topics = await sql(
          `SELECT topic_id, conversations, visibility, share_of_voice FROM visibility_topic_engine_daily
           WHERE brand_id = 1 AND "day" = $1 AND engine = $2 ORDER BY topic_id`,
          [day, engine],
        );
        expect(topics, `${engine} ${day}`).toEqual(
          [...answer.records]
            .sort((a, b) => a.topic_id - b.topic_id)
            .map((row) => ({
              topic_id: row.topic_id,
              conversations: row.conversations,
              visibility: row.visibility,
              share_of_voice: row.share_of_voice ?? null,
            })),
        );
        const scenarios = await sql(
          `SELECT count(*)::INTEGER AS n FROM visibility_scenario_engine_daily WHERE "day" = $1 AND engine = $2`,
          [day, engine],
        );
        expect(scenarios[0]!.n).toBe(answer.records.reduce((sum, row) => sum + (row.scenarios?.length ?? 0), 0));
        const brands = await sql(
          `SELECT count(*)::INTEGER AS n FROM visibility_topic_brand_engine_daily WHERE "day" = $1 AND engine = $2`,
          [day, engine],
        );
        expect(brands[0]!.n).toBe(answer.records.reduce((sum, row) => sum + row.brands.length, 0));
      }
    }
  });

  it("per engine and day, the topic rows' answers equal that engine's conversations (v_engine_reconciliation_daily)", async () => {
    const rows = await sql(
      `SELECT "day"::VARCHAR AS day, engine, broken_down, visibility_answers, conversations, visibility_mentioned, mentioned_conversations, agrees
       FROM v_engine_reconciliation_daily WHERE brand_id = 1 ORDER BY ALL`,
    );
    const brokenDown = rows.filter((row) => row.broken_down);
    expect(brokenDown).toHaveLength(DAYS.length * brandEngines.length);
    for (const row of brokenDown) {
      expect(row, `${String(row.engine)} ${String(row.day)}`).toMatchObject({
        agrees: true,
        visibility_answers: row.conversations,
      });
      expect(Number(row.conversations)).toBe(
        fx.sim.truth.answers(1, String(row.day)).filter((answer) => answer.engine === row.engine).length,
      );
    }
    expect(brokenDown.some((row) => Number(row.conversations) > 0)).toBe(true);
    // Engines only some topics run on are answered in conversations but not broken down: said, not compared.
    for (const row of rows.filter((r) => !r.broken_down)) expect(row.agrees).toBeNull();
  });

  it('says which engines the all-engine visibility rows cover, and matches the conversations of those engines', async () => {
    const rows =
      await sql(`SELECT "day"::VARCHAR AS day, engines, visibility_answers, conversations_of_those_engines, conversations_all_engines, agrees
                            FROM v_visibility_coverage_daily WHERE brand_id = 1 ORDER BY 1`);
    expect(rows.map((row) => row.day)).toEqual(DAYS);
    for (const row of rows) {
      expect(row.engines).toEqual(brandEngines);
      expect(row.agrees, String(row.day)).toBe(true);
      expect(Number(row.conversations_all_engines)).toBe(fx.sim.truth.answers(1, String(row.day)).length);
    }
  });

  it("per-engine product ranking equals the API's answer for engines=[engine]", async () => {
    const day = DAYS[1]!;
    for (const engine of brandEngines) {
      const ids: number[] = [];
      for await (const page of client.read(productRankingEndpoint, 1, {
        startDate: day,
        endDate: day,
        engines: [engine],
        metric: 'visibility',
        subject: 'brand',
        order: 'desc',
      })) {
        ids.push(...page.records.map((record: ProductRankingRow) => record.id));
      }
      const rows = await sql(
        `SELECT product_id FROM v_product_ranking_engine_daily WHERE "day" = $1 AND engine = $2 AND metric = 'visibility' AND subject = 'brand' ORDER BY "rank"`,
        [day, engine],
      );
      expect(
        rows.map((row) => Number(row.product_id)),
        engine,
      ).toEqual(ids);
    }
  });

  it('records the engines each product-ranking slice sent, as that answer echoes no query; none for the all-engine slices', async () => {
    const sent = await sql(
      `SELECT DISTINCT engines, query FROM _slice_queries WHERE stream = 'product_ranking_by_engine' ORDER BY ALL`,
    );
    expect(sent.map((row) => row.engines)).toEqual([...brandEngines].sort().map((engine) => [engine]));
    for (const row of sent) expect(JSON.parse(String(row.query))).toEqual({ sent: { engines: row.engines } });
    // The all-engine slices sent no engines filter (api.engines is empty): the API's default applies, and no record
    // claims otherwise.
    expect(await sql(`SELECT count(*)::INTEGER AS n FROM _slice_queries WHERE stream = 'product_ranking'`)).toEqual([
      { n: 0 },
    ]);
  });
});
