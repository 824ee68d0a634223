import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunProgress } from '../../src/engine/run/start-run.js';
import { CONTENT_TYPE_VALUES, OWNERSHIP_VALUES, SENTIMENT_VALUES } from '../../src/api/index.js';
import { addDays, eachDay } from '../../src/days.js';
import type { LoggedRequest } from '../../src/simulator/index.js';
import { CITATIONS_DOMAINS_MAX } from '../../src/streams/citations.js';
import { distinctDomains } from '../../src/streams/domains.js';
import { engineFixture, queryFile, runInProcess, scalarOfFile, type EngineFixture } from '../support/engine.js';

/**
 * Incremental syncs of every stream as a schedule runs them: a first sync, a day later with late answers arriving,
 * and again right after with nothing new. The request log of the simulator shows what each run fetched.
 */

const FIRST_TODAY = '2026-11-20';
const INITIAL_DAYS = 5;
const LOOKBACK_DAYS = 3;
const LATE_DAYS = 2;

let fx: EngineFixture;
const sql = (text: string, params: Array<string | number> = []) => queryFile(fx.config.db, text, params);
const scalar = (text: string, params: Array<string | number> = []) => scalarOfFile(fx.config.db, text, params);
const apiRequests = () => fx.sim.requestLog().filter((entry) => entry.path.startsWith('/customer/v1/'));
const isConversations = (entry: LoggedRequest) => /\/brands\/\d+\/conversations$/.test(entry.path);

function sync(): Promise<RunProgress> {
  return runInProcess(fx, { kind: 'sync', today: fx.sim.truth.today() });
}

async function conversationsPerDay(): Promise<Map<string, number>> {
  const rows = await sql(
    'SELECT brand_id, "day"::VARCHAR AS day, count(*)::INTEGER AS n FROM conversations GROUP BY ALL',
  );
  return new Map(rows.map((row) => [`${String(row.brand_id)}|${String(row.day)}`, Number(row.n)]));
}

let first: RunProgress;
let afterFirst: Map<string, number>;

beforeAll(async () => {
  fx = await engineFixture('incremental', {
    config: { sync: { initialDays: INITIAL_DAYS, lookbackDays: LOOKBACK_DAYS, fetchConcurrency: 8 } },
  });
  // Late answers are on from the start: turned on later, they would hide answers already shown, which no real API does.
  fx.sim.setKnobs({ lateShare: 0.3, lateDays: LATE_DAYS });
  first = await sync();
  afterFirst = await conversationsPerDay();
});
afterAll(async () => fx?.cleanup());

describe('incremental sync', () => {
  it("a first sync fetches the initial days and sets each stream's position to yesterday", async () => {
    expect(first.meta.status).toBe('complete');
    const days = eachDay(addDays(FIRST_TODAY, -(INITIAL_DAYS - 1)), FIRST_TODAY);
    const starts = new Set(
      apiRequests()
        .filter(isConversations)
        .map((entry) => entry.query.start_date),
    );
    expect([...starts].sort()).toEqual(days);
    for (const brandId of fx.config.brands) {
      for (const day of days)
        expect(afterFirst.get(`${brandId}|${day}`)).toBe(fx.sim.truth.answers(brandId, day).length);
    }
    const cursors = await sql('SELECT DISTINCT through_day::VARCHAR AS day FROM _sync_cursors');
    expect(cursors).toEqual([{ day: addDays(FIRST_TODAY, -1) }]);
    // Every stream of both brands has a cursor (a full-refresh stream's says when it last completed).
    const streams = await sql('SELECT brand_id, count(*)::INTEGER AS n FROM _sync_cursors GROUP BY ALL ORDER BY ALL');
    expect(streams.map((row) => row.brand_id)).toEqual(fx.config.brands);
    expect(streams[0]!.n).toBeGreaterThanOrEqual(10);
  });

  describe('a day later, with late answers', () => {
    let second: RunProgress;
    let requests: LoggedRequest[];
    beforeAll(async () => {
      fx.sim.clearRequestLog();
      fx.sim.advanceClock(1);
      second = await sync();
      requests = apiRequests();
    });

    it('fetches the new day and the lookback days again, nothing older', async () => {
      expect(second.meta.status).toBe('complete');
      const today = fx.sim.truth.today();
      expect(today).toBe(addDays(FIRST_TODAY, 1));
      const lookback = eachDay(addDays(today, -(LOOKBACK_DAYS - 1)), today);
      const starts = requests.filter(isConversations).map((entry) => String(entry.query.start_date));
      expect([...new Set(starts)].sort()).toEqual(lookback);
      // Each day of each brand once: no slice was fetched twice.
      expect(starts).toHaveLength(lookback.length * fx.config.brands.length);
      const dated = requests.filter((entry) => typeof entry.query.start_date === 'string');
      expect(dated.filter((entry) => String(entry.query.start_date) < lookback[0]!)).toEqual([]);
    });

    it('picks up the late answers of the last days, and the new day', async () => {
      const now = await conversationsPerDay();
      const today = fx.sim.truth.today();
      for (const brandId of fx.config.brands) {
        for (let age = 1; age <= LATE_DAYS; age++) {
          const day = addDays(today, -age);
          const visible = fx.sim.truth.answers(brandId, day).length;
          expect(now.get(`${brandId}|${day}`), `brand ${brandId} on ${day}`).toBe(visible);
          expect(visible).toBeGreaterThan(afterFirst.get(`${brandId}|${day}`)!);
        }
        expect(now.get(`${brandId}|${today}`)).toBe(fx.sim.truth.answers(brandId, today).length);
        // Days older than the lookback were complete and were not fetched again: unchanged.
        const older = addDays(today, -LOOKBACK_DAYS);
        expect(now.get(`${brandId}|${older}`)).toBe(afterFirst.get(`${brandId}|${older}`));
      }
      const cursors = await sql('SELECT DISTINCT through_day::VARCHAR AS day FROM _sync_cursors');
      expect(cursors).toEqual([{ day: addDays(today, -1) }]);
    });

    it('a sync right after, with nothing new, makes only the lookback, full-refresh and phase-2 calls', async () => {
      const before = await conversationsPerDay();
      fx.sim.clearRequestLog();
      const third = await sync();
      expect(third.meta.status).toBe('complete');
      const log = apiRequests();
      let expected = 0;
      for (const brandId of fx.config.brands) {
        const texts = await sql(
          'SELECT url AS text FROM tracked_urls WHERE brand_id = $1 UNION ALL SELECT website FROM competitors WHERE brand_id = $1',
          [brandId],
        );
        const domains = distinctDomains(texts.map((row) => row.text as string | null)).length;
        expect(domains).toBeGreaterThan(0);
        // Phase 1, per day: visibility, tracked URLs, conversations, and product ranking's 2 metrics x 2 subjects.
        const perDay = 1 + 1 + 1 + 4;
        // Phase 1, full refresh: competitors, templates, articles, content analyses (no SWOT ids or phrases configured).
        const fullRefresh = 4;
        // Phase 2, per day: a domain's details; per window: the citation series and each domain's cited fanouts.
        const citationSeries =
          1 +
          OWNERSHIP_VALUES.length +
          SENTIMENT_VALUES.length +
          CONTENT_TYPE_VALUES.length +
          Math.ceil(domains / CITATIONS_DOMAINS_MAX);
        // Phase 2, per window: each tracked page's cited fanouts (cited_page_fanouts).
        const pages = await scalar('SELECT count(DISTINCT url) FROM tracked_urls WHERE brand_id = $1', [brandId]);
        // Phase 2, per day: the visibility report once per engine its echo named (visibility_by_engine).
        const engines = await scalar(
          `SELECT count(DISTINCT engine) FROM (SELECT unnest(engines) AS engine FROM _slice_queries WHERE brand_id = $1 AND stream = 'visibility')`,
          [brandId],
        );
        expect(engines).toBeGreaterThan(0);
        expected += LOOKBACK_DAYS * (perDay + domains + engines) + fullRefresh + citationSeries + domains + pages;
      }
      // Pages beyond the first: any slice whose total_rows passed a page (none at this scale, but it would count).
      const extraPages = await scalar(
        `SELECT coalesce(sum(greatest(ceil(total_rows / 100) - 1, 0)), 0) FROM _sync_state WHERE run_id = $1`,
        [third.meta.runId],
      );
      expect(log.length).toBe(expected + extraPages);
      expect(third.planned).toBe(expected);
      expect(log.filter((entry) => entry.status !== 200 && entry.status !== 404)).toEqual([]);
      expect(await conversationsPerDay()).toEqual(before);
    });

    it('a backfill of older days afterwards fills them and leaves every cursor where it was', async () => {
      const cursors = () =>
        sql('SELECT brand_id, stream, through_day::VARCHAR AS day, run_id FROM _sync_cursors ORDER BY ALL');
      const before = await cursors();
      const older = addDays(fx.sim.truth.today(), -7);
      const backfill = await runInProcess(fx, {
        kind: 'backfill',
        today: fx.sim.truth.today(),
        from: older,
        to: older,
        streams: ['conversations'],
      });
      expect(backfill.meta.status).toBe('complete');
      expect(await cursors()).toEqual(before);
      for (const brandId of fx.config.brands) {
        expect((await conversationsPerDay()).get(`${brandId}|${older}`)).toBe(
          fx.sim.truth.answers(brandId, older).length,
        );
      }
    });
  });
});
