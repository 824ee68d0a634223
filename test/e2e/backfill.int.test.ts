import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunProgress } from '../../src/engine/run/start-run.js';
import { eachDay } from '../../src/days.js';
import { STREAM_NAMES } from '../../src/streams/stream-names.js';
import { openReadOnly, type ReadOnlyDatabase } from '../../src/warehouse/publish/published-database.js';
import { readRows } from '../../src/warehouse/read-rows.js';
import { engineFixture, runInProcess, type EngineFixture } from '../support/engine.js';

/**
 * A backfill of every stream, 7 days of 2 brands, through the whole engine (BullMQ on real Redis, the writer lease,
 * one-transaction commits, the published copy), then the published tables checked against the simulator's truth
 * and against each other.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-14';
const DAYS = eachDay(FROM, TODAY);

let fx: EngineFixture;
let progress: RunProgress;
let db: ReadOnlyDatabase;
const sql = (text: string, params: Array<string | number> = []) => readRows(db.connection, text, params);
const scalar = async (text: string, params: Array<string | number> = []) =>
  Number(Object.values((await sql(text, params))[0] ?? {})[0] ?? 0);

beforeAll(async () => {
  fx = await engineFixture('backfill', { config: { sync: { fetchConcurrency: 8 } } });
  // Statement ids and phrases come from the simulator's catalog, so the two config-driven streams load too.
  const worlds = fx.sim.brands.map((brandId) => fx.sim.truth.world(brandId));
  fx.config.sync.swotStatementIds = Object.fromEntries(
    worlds.map((world) => [String(world.brand.id), [world.swotStatements[0]!.id]]),
  );
  fx.config.sync.phrases = worlds.map((world) => world.phrases[0]!);
  // The per-engine streams slice each day by engine; one engine both brands run fills their tables at a seventh of the slices.
  fx.config.sync.engineBreakdown = worlds[0]!.brand.engines
    .filter((engine) => worlds.every((world) => world.brand.engines.includes(engine)))
    .slice(0, 1);
  progress = await runInProcess(fx, {
    kind: 'backfill',
    today: TODAY,
    from: FROM,
    to: TODAY,
    streams: [...STREAM_NAMES],
  });
  db = await openReadOnly(fx.config.db);
  // ~35 s alone on the 2-core box before the per-engine streams, ~46 s with them (their slices commit one at a time).
}, 120_000);
afterAll(async () => {
  db?.close();
  await fx?.cleanup();
});

describe('a backfill of every stream, 7 days of 2 brands', () => {
  it('completes every planned slice and publishes', async () => {
    expect(progress.meta.status).toBe('complete');
    expect(progress.done).toBe(progress.planned);
    expect(progress.meta.published).toBe(fx.config.db);
    const notComplete = await sql(
      `SELECT brand_id, stream, slice_key, status, last_error FROM _sync_state WHERE status <> 'complete'`,
    );
    expect(notComplete).toEqual([]);
    expect(await scalar('SELECT count(*) FROM _sync_state')).toBe(progress.planned);
    // Every stream of both brands has state, so every stream was planned and loaded.
    const streams = await sql(
      'SELECT brand_id, count(DISTINCT stream)::INTEGER AS n FROM _sync_state GROUP BY ALL ORDER BY ALL',
    );
    expect(streams).toEqual(fx.config.brands.map((brandId) => ({ brand_id: brandId, n: STREAM_NAMES.length })));
  });

  it('fills every table of the warehouse for both brands', async () => {
    const tables = await sql(
      `SELECT table_name FROM duckdb_tables() WHERE NOT starts_with(table_name, '_') ORDER BY 1`,
    );
    expect(tables.length).toBeGreaterThan(25);
    const empty: string[] = [];
    for (const { table_name: table } of tables) {
      for (const brandId of fx.config.brands) {
        if ((await scalar(`SELECT count(*) FROM "${String(table)}" WHERE brand_id = $1`, [brandId])) === 0)
          empty.push(`${String(table)} of brand ${brandId}`);
      }
    }
    expect(empty).toEqual([]);
  });

  it('records the run complete in _sync_runs, with counters that add up to the slices, and moves no cursor', async () => {
    const [run] = await sql(
      `SELECT status, kind, window_start::VARCHAR AS ws, window_end::VARCHAR AS we, slices, requests, "rows", errors FROM _sync_runs WHERE run_id = $1`,
      [progress.meta.runId],
    );
    expect(run).toMatchObject({ status: 'complete', kind: 'backfill', ws: FROM, we: TODAY, errors: 0 });
    expect(run!.slices).toBe(progress.planned);
    const stateTotals = await sql(`SELECT sum(requests)::BIGINT AS requests FROM _sync_state WHERE run_id = $1`, [
      progress.meta.runId,
    ]);
    expect(run!.requests).toBe(stateTotals[0]!.requests);
    const apiCalls = fx.sim.requestLog().filter((entry) => entry.path.startsWith('/customer/v1/')).length;
    expect(run!.requests).toBe(apiCalls);
    let redisRows = 0;
    for (const counters of progress.counters.values()) redisRows += counters.rows;
    expect(run!.rows).toBe(redisRows);
    expect(Number(run!.rows)).toBeGreaterThan(1000);
    expect(await scalar('SELECT count(*) FROM _sync_cursors')).toBe(0);
  });

  it("loads each day's conversations: as many as the API's total_rows and the simulator's answers", async () => {
    for (const brandId of fx.config.brands) {
      for (const day of DAYS) {
        const answers = fx.sim.truth.answers(brandId, day);
        expect(answers.length).toBeGreaterThan(0);
        expect(fx.sim.truth.totalRows(brandId, day, day)).toBe(answers.length);
        expect(
          await scalar('SELECT count(*) FROM conversations WHERE brand_id = $1 AND "day" = $2', [brandId, day]),
        ).toBe(answers.length);
        expect(
          await scalar(
            `SELECT total_rows FROM _sync_state WHERE brand_id = $1 AND stream = 'conversations' AND "day" = $2`,
            [brandId, day],
          ),
        ).toBe(answers.length);
        expect(
          await scalar('SELECT count(*) FROM conversations WHERE brand_id = $1 AND "day" = $2 AND mentioned', [
            brandId,
            day,
          ]),
        ).toBe(answers.filter((answer) => answer.mentioned).length);
        expect(
          await scalar('SELECT count(*) FROM conversation_brands WHERE brand_id = $1 AND "day" = $2', [brandId, day]),
        ).toBe(answers.reduce((sum, answer) => sum + answer.brands.length, 0));
      }
    }
  });

  it("loads as many tracked URL days as the report's total_rows, and every slice's rows match its total_rows", async () => {
    const mismatched = await sql(
      `SELECT t.brand_id, t."day"::VARCHAR AS day, t.total_rows, count(d.tracked_url_id)::INTEGER AS loaded
       FROM tracked_url_daily_totals t LEFT JOIN tracked_url_daily d USING (brand_id, "day")
       GROUP BY ALL HAVING count(d.tracked_url_id) <> t.total_rows`,
    );
    expect(mismatched).toEqual([]);
    expect(await scalar('SELECT count(*) FROM tracked_url_daily_totals')).toBe(fx.config.brands.length * DAYS.length);
    expect(await scalar('SELECT count(*) FROM tracked_url_daily')).toBeGreaterThan(0);
    // A paged slice is complete only when the distinct ids loaded match total_rows (DESIGN: completeness).
    const offCount = await sql(
      `SELECT brand_id, stream, slice_key, "rows", total_rows FROM _sync_state WHERE total_rows IS NOT NULL AND "rows" <> total_rows`,
    );
    expect(offCount).toEqual([]);
  });

  it("recomputes each day's visibility from the conversations: the all-topics totals of the visibility report", async () => {
    // Each answer belongs to one topic, so the topics partition a day's answers; the report counts the brand's
    // engines (its default engine filter), the conversations endpoint all of them.
    for (const brandId of fx.config.brands) {
      const engines = fx.sim.truth.world(brandId).brand.engines as readonly string[];
      const placeholders = engines.map((_, index) => `$${index + 3}`).join(', ');
      const recomputed = await sql(
        `SELECT count(*)::INTEGER AS conversations, count(*) FILTER (WHERE mentioned)::INTEGER AS mentioned
         FROM conversations WHERE brand_id = $1 AND "day" = $2 AND model IN (${placeholders})`,
        [brandId, DAYS[0]!, ...engines],
      );
      expect(recomputed[0]!.conversations).toBeGreaterThan(0);
      for (const day of DAYS) {
        const [fromConversations] = await sql(
          `SELECT count(*)::INTEGER AS conversations, count(*) FILTER (WHERE mentioned)::INTEGER AS mentioned
           FROM conversations WHERE brand_id = $1 AND "day" = $2 AND model IN (${placeholders})`,
          [brandId, day, ...engines],
        );
        const [fromReport] = await sql(
          `SELECT sum(conversations)::INTEGER AS conversations, sum(mentioned_conversations)::INTEGER AS mentioned
           FROM visibility_topic_daily WHERE brand_id = $1 AND "day" = $2`,
          [brandId, day],
        );
        expect(fromReport, `brand ${brandId} on ${day}`).toEqual(fromConversations);
        // The scenarios partition the same answers.
        expect(
          await scalar('SELECT sum(conversations) FROM visibility_scenario_daily WHERE brand_id = $1 AND "day" = $2', [
            brandId,
            day,
          ]),
        ).toBe(fromConversations!.conversations);
      }
    }
  });

  it("agrees between the citation series of a domain and that domain's daily details", async () => {
    const mismatched = await sql(
      `SELECT c.brand_id, c."day"::VARCHAR AS day, c."value", c.occurrences, d.occurrences AS detail
       FROM citation_daily c LEFT JOIN domain_daily d ON d.brand_id = c.brand_id AND d.domain = c."value" AND d."day" = c."day"
       WHERE c.dimension = 'domain' AND coalesce(d.occurrences, 0) <> c.occurrences`,
    );
    expect(mismatched).toEqual([]);
    const detailWithoutSeries = await sql(
      `SELECT d.brand_id, d.domain, d."day"::VARCHAR AS day FROM domain_daily d
       LEFT JOIN citation_daily c ON c.brand_id = d.brand_id AND c.dimension = 'domain' AND c."value" = d.domain AND c."day" = d."day"
       WHERE c.occurrences IS NULL`,
    );
    expect(detailWithoutSeries).toEqual([]);
    expect(
      await scalar(`SELECT count(*) FROM citation_daily WHERE dimension = 'domain' AND occurrences > 0`),
    ).toBeGreaterThan(0);
    // The series of all citations counts every citation of every answer of the day.
    for (const brandId of fx.config.brands) {
      for (const day of DAYS) {
        const citations = fx.sim.truth.answers(brandId, day).reduce((sum, answer) => sum + answer.citations.length, 0);
        expect(
          await scalar(
            `SELECT occurrences FROM citation_daily WHERE brand_id = $1 AND "day" = $2 AND dimension = 'all'`,
            [brandId, day],
          ),
        ).toBe(citations);
      }
    }
  });
});
