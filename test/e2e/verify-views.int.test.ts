import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eachDay } from '../../src/days.js';
import { engineFixture, queryFile, runInProcess, type EngineFixture } from '../support/engine.js';

/**
 * The views that say what their numbers cover, checked against the simulator's answers after two overlapping
 * backfills: every brand named per day and engine (not only the report's top five), share of voice over every brand
 * named, and the window-keyed tables read one window at a time.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-14';
const TO = '2026-11-19';
const SECOND_FROM = '2026-11-17';
const STREAMS = [
  'visibility',
  'competitors',
  'tracked_urls',
  'conversations',
  'citations',
  'swot',
  'articles',
  'cited_page_fanouts',
];

let fx: EngineFixture;
let brandId: number;
const sql = (text: string, params: Array<string | number> = []) => queryFile(fx.config.db, text, params);

beforeAll(async () => {
  fx = await engineFixture('verify-views', { sim: { brands: 1 }, config: { sync: { fetchConcurrency: 8 } } });
  brandId = fx.config.brands[0]!;
  const world = fx.sim.truth.world(brandId);
  // The statement with the most answers in the window, so the counts compared are not zero.
  const behind = (id: number) =>
    eachDay(FROM, TO).reduce(
      (n, day) => n + fx.sim.truth.answers(brandId, day).filter((a) => a.statementId === id).length,
      0,
    );
  const statement = [...world.swotStatements].sort((a, b) => behind(b.id) - behind(a.id))[0]!;
  fx.config.sync.swotStatementIds = { [String(brandId)]: [statement.id] };
  for (const from of [FROM, SECOND_FROM]) {
    expect(
      (await runInProcess(fx, { kind: 'backfill', today: TODAY, from, to: TO, streams: STREAMS })).meta.status,
    ).toBe('complete');
  }
}, 240_000);
afterAll(async () => fx?.cleanup());

/** Per brand name: answers naming it, times named; and the day's answers and brand mentions, from the simulator. */
function truthOf(day: string, engines?: ReadonlySet<string>) {
  const world = fx.sim.truth.world(brandId);
  const nameOf = (who: number) => (who === -1 ? world.brand.name : world.basis.competitors[who]!.competitor.name);
  const answers = fx.sim.truth.answers(brandId, day).filter((answer) => !engines || engines.has(answer.engine));
  const naming = new Map<string, number>();
  let mentions = 0;
  for (const answer of answers) {
    mentions += answer.brands.length;
    for (const name of new Set(answer.brands.map((mention) => nameOf(mention.who))))
      naming.set(name, (naming.get(name) ?? 0) + 1);
  }
  return { answers: answers.length, naming, mentions };
}

describe('views of every brand named', () => {
  it("v_brand_mentions_daily counts every brand the answers name, with the day's answers and mentions as denominators", async () => {
    const rows = await sql(
      `SELECT "day"::VARCHAR AS day, brand_name, answers, answers_naming, all_brand_mentions, visibility, share_of_voice, mentions
       FROM v_brand_mentions_daily WHERE brand_id = $1`,
      [brandId],
    );
    for (const day of eachDay(FROM, TO)) {
      const truth = truthOf(day);
      const ofDay = rows.filter((row) => row.day === day);
      expect(new Map(ofDay.map((row) => [row.brand_name, row.answers_naming])), day).toEqual(truth.naming);
      for (const row of ofDay) {
        expect(row.answers).toBe(truth.answers);
        expect(row.all_brand_mentions).toBe(truth.mentions);
        expect(row.visibility).toBeCloseTo(Number(row.answers_naming) / truth.answers, 12);
        expect(row.share_of_voice).toBeCloseTo(Number(row.mentions) / truth.mentions, 12);
      }
    }
    // Brands the report never lists (beyond its top five, or suggested competitors) are named too: the point of
    // counting from the answers.
    const unlisted = await sql(
      `SELECT DISTINCT brand_name FROM v_brand_mentions_daily WHERE brand_id = $1
       EXCEPT SELECT brand_name FROM visibility_topic_brand_daily WHERE brand_id = $1`,
      [brandId],
    );
    expect(unlisted.length).toBeGreaterThan(0);
  });

  it('v_brand_mentions_engine_daily splits the same counts by engine', async () => {
    const day = TO;
    const rows = await sql(
      `SELECT engine, brand_name, answers, answers_naming, all_brand_mentions FROM v_brand_mentions_engine_daily
       WHERE brand_id = $1 AND "day" = $2::DATE`,
      [brandId, day],
    );
    const engines = [...new Set(rows.map((row) => String(row.engine)))];
    expect(engines.length).toBeGreaterThan(1);
    for (const engine of engines) {
      const truth = truthOf(day, new Set([engine]));
      const ofEngine = rows.filter((row) => row.engine === engine);
      expect(new Map(ofEngine.map((row) => [row.brand_name, row.answers_naming])), engine).toEqual(truth.naming);
      for (const row of ofEngine)
        expect([row.answers, row.all_brand_mentions]).toEqual([truth.answers, truth.mentions]);
    }
  });

  it('v_share_of_voice_daily is every brand named in the answers over all their mentions, each brand of its kind', async () => {
    const world = fx.sim.truth.world(brandId);
    const rows = await sql(
      `SELECT "day"::VARCHAR AS day, brand_name, brand_kind, mentions, all_brand_mentions, share_of_voice
       FROM v_share_of_voice_daily WHERE brand_id = $1`,
      [brandId],
    );
    expect([...new Set(rows.map((row) => row.day))].sort()).toEqual(eachDay(FROM, TO));
    for (const day of eachDay(FROM, TO)) {
      const answers = fx.sim.truth.answers(brandId, day);
      const mentions = new Map<string, number>();
      for (const answer of answers) {
        for (const mention of answer.brands) {
          const name = mention.who === -1 ? world.brand.name : world.basis.competitors[mention.who]!.competitor.name;
          mentions.set(name, (mentions.get(name) ?? 0) + 1);
        }
      }
      const all = [...mentions.values()].reduce((sum, n) => sum + n, 0);
      const ofDay = rows.filter((row) => row.day === day);
      expect(new Map(ofDay.map((row) => [row.brand_name, row.mentions])), day).toEqual(mentions);
      for (const row of ofDay) {
        expect(row.all_brand_mentions).toBe(all);
        expect(row.share_of_voice).toBeCloseTo(Number(row.mentions) / all, 12);
      }
    }
    // Suggested competitors are in it, of their kind: the report's top five left them out of the old view.
    const kinds = new Map(rows.map((row) => [row.brand_name, row.brand_kind]));
    expect(kinds.get(world.brand.name)).toBe('own');
    for (const { competitor } of world.basis.competitors) {
      if (kinds.has(competitor.name))
        expect(kinds.get(competitor.name), competitor.name).toBe(
          competitor.is_actual ? 'tracked competitor' : 'suggested competitor',
        );
    }
    expect([...kinds.values()]).toContain('suggested competitor');
  });
});

describe('windows said out loud', () => {
  it('v_visibility_topic_daily names the change of a one-day request as against the previous day', async () => {
    const columns = await sql(`SELECT column_name FROM duckdb_columns() WHERE table_name = 'v_visibility_topic_daily'`);
    const names = columns.map((row) => row.column_name);
    expect(names).toContain('change_vs_previous_day');
    expect(names).not.toContain('change');
  });

  it('v_citation_ownership_one_window reads the newest window only, where the table holds both', async () => {
    const windows = await sql(
      `SELECT DISTINCT window_start::VARCHAR AS ws, window_end::VARCHAR AS we FROM citation_ownership_summary WHERE brand_id = $1 ORDER BY ws`,
      [brandId],
    );
    expect(windows).toEqual([
      { ws: FROM, we: TO },
      { ws: SECOND_FROM, we: TO },
    ]);
    const one = await sql(
      `SELECT DISTINCT window_start::VARCHAR AS ws, window_end::VARCHAR AS we, sum(occurrences) OVER ()::INTEGER AS total
       FROM v_citation_ownership_one_window WHERE brand_id = $1`,
      [brandId],
    );
    const daily = await sql(
      `SELECT sum(occurrences)::INTEGER AS total FROM citation_daily
       WHERE brand_id = $1 AND dimension = 'ownership' AND "day" BETWEEN $2::DATE AND $3::DATE`,
      [brandId, SECOND_FROM, TO],
    );
    expect(one).toEqual([{ ws: SECOND_FROM, we: TO, total: daily[0]!.total }]);
    expect(Number(daily[0]!.total)).toBeGreaterThan(0);
  });

  it('v_cited_page_fanouts_one_window reads the newest window of each page only', async () => {
    const windows = await sql(
      'SELECT DISTINCT window_start::VARCHAR AS ws FROM cited_page_fanouts WHERE brand_id = $1 ORDER BY ws',
      [brandId],
    );
    expect(windows).toEqual([{ ws: FROM }, { ws: SECOND_FROM }]);
    const one = await sql(
      `SELECT DISTINCT window_start::VARCHAR AS ws, window_end::VARCHAR AS we FROM v_cited_page_fanouts_one_window WHERE brand_id = $1`,
      [brandId],
    );
    expect(one).toEqual([{ ws: SECOND_FROM, we: TO }]);
    const rows = await sql(
      `SELECT (SELECT count(*) FROM v_cited_page_fanouts_one_window WHERE brand_id = $1)::INTEGER AS viewed,
              (SELECT count(*) FROM cited_page_fanouts WHERE brand_id = $1 AND window_start = $2::DATE)::INTEGER AS newest`,
      [brandId, SECOND_FROM],
    );
    expect(rows[0]!.viewed).toBe(rows[0]!.newest);
    expect(Number(rows[0]!.viewed)).toBeGreaterThan(0);
  });

  it("v_swot_mentions_daily dates the answers behind a statement, so a window's mentions are a sum", async () => {
    const [statement] = await sql('SELECT statement_id, mentions FROM swot_statements WHERE brand_id = $1', [brandId]);
    const perDay = await sql(
      `SELECT sum(mentions)::INTEGER AS n FROM v_swot_mentions_daily WHERE brand_id = $1 AND statement_id = $2 AND "day" BETWEEN $3::DATE AND $4::DATE`,
      [brandId, Number(statement!.statement_id), SECOND_FROM, TO],
    );
    // The statement's mentions are of the last window read, the second backfill's.
    expect(perDay[0]!.n).toBe(statement!.mentions);
    const all = await sql('SELECT sum(mentions)::INTEGER AS n FROM v_swot_mentions_daily WHERE brand_id = $1', [
      brandId,
    ]);
    expect(Number(statement!.mentions)).toBeGreaterThan(0);
    expect(Number(all[0]!.n)).toBeGreaterThan(Number(statement!.mentions));
  });

  it("keeps the visibility rows' days, and dates the article counters by the day they were read, not the window's end", async () => {
    const days = await sql(
      'SELECT DISTINCT days FROM visibility_topic_daily WHERE brand_id = $1 UNION SELECT DISTINCT days FROM visibility_scenario_daily WHERE brand_id = $1',
      [brandId],
    );
    expect(days).toEqual([{ days: 1 }]);
    const counters = await sql('SELECT "day"::VARCHAR AS day FROM article_status_daily WHERE brand_id = $1', [brandId]);
    expect(counters.length).toBeGreaterThan(0);
    // The workers' clock is the simulator's today (runInProcess), whatever the real date: the counters' day is it.
    expect(counters.map(({ day }) => day)).toEqual(counters.map(() => TODAY));
    expect(TODAY).not.toBe(TO);
  });
});
