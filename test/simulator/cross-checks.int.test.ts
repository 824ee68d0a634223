import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { client, TODAY } from './client.js';

/** The reports are computed from the same answers the conversations endpoint serves; these tests hold them to it. */
let sim: RunningSimulator;
let api: ReturnType<typeof client>;
const DAY = '2026-11-18';
const oneDay = { start_date: DAY, end_date: DAY };

beforeAll(async () => {
  sim = await startSimulator({ today: TODAY, seed: 3, scale: 150 });
  api = client(sim, 1);
});
afterAll(() => sim.close());

describe('reports agree with the answers', () => {
  it("a topic's visibility for a day is the share of that day's answers (brand engines) mentioning the brand", async () => {
    const engines = sim.truth.world(1).brand.engines;
    const report = await api.get('/reports/visibility/topics', oneDay);
    expect(report.body.data.length).toBeGreaterThan(2);
    for (const row of report.body.data) {
      const all = await api.get('/conversations', { ...oneDay, engines, topic_id: row.topic_id });
      const mentioned = await api.get('/conversations', {
        ...oneDay,
        engines,
        topic_id: row.topic_id,
        mentioned: true,
      });
      expect(row.conversations).toBe(all.body.info.total_rows);
      expect(row.visibility).toBeCloseTo(mentioned.body.info.total_rows / all.body.info.total_rows, 12);
      expect(row.days).toBe(1);
    }
  });

  it('the brand entries of a topic count the competitors named in the conversations', async () => {
    const report = await api.get('/reports/visibility/topics', oneDay);
    const row = report.body.data[0];
    const engines = sim.truth.world(1).brand.engines;
    const records: Array<{ brands: Array<{ name: string }> }> = [];
    for (let page = 1; ; page++) {
      const reply = await api.get('/conversations', {
        ...oneDay,
        engines,
        topic_id: row.topic_id,
        page,
        page_size: 100,
      });
      records.push(...reply.body.data);
      if (reply.body.data.length < 100) break;
    }
    for (const entry of row.brands.slice(1)) {
      const naming = records.filter((r) => r.brands.some((b) => b.name === entry.name)).length;
      expect(entry.visibility).toBeCloseTo(naming / records.length, 12);
    }
    const mentions = records.reduce((sum, r) => sum + r.brands.length, 0);
    const own = records.filter((r) => r.brands.some((b) => b.name === sim.truth.world(1).brand.name)).length;
    expect(row.share_of_voice).toBeCloseTo(own / mentions, 12);
  });

  it('a per-domain citation series equals the domain detail over time', async () => {
    const range = { start_date: '2026-11-10', end_date: '2026-11-20' };
    const series = await api.get('/reports/citations', { ...range, period: 'day', domains: ['reddit.com'] });
    const detail = await api.get('/citations/domains/reddit.com', range);
    const fromSeries = series.body.data
      .filter((r: { domain?: string; occurrences: number }) => r.domain === 'reddit.com' && r.occurrences > 0)
      .map((r: { date: string; occurrences: number }) => [r.date, r.occurrences]);
    const fromDetail = detail.body.data.over_time.map((p: { date: string; occurrences: number }) => [
      p.date,
      p.occurrences,
    ]);
    expect(fromSeries).toEqual(fromDetail);
    const answers = sim.truth.answers(1, DAY);
    const citations = answers.reduce((sum, a) => sum + a.citations.length, 0);
    const dayRow = series.body.data.find(
      (r: { date: string; domain?: string }) => r.date === DAY && r.domain === undefined,
    );
    expect(dayRow.occurrences).toBe(citations);
  });

  it('tracked URL counts are the answers of the range citing each page', async () => {
    const reply = await api.get('/tracked-urls', { ...oneDay, page_size: 100 });
    const answers = sim.truth.answers(1, DAY);
    for (const row of reply.body.data) {
      const citing = answers.filter((a) => a.citations.some((c) => c.page.url === row.url));
      expect(row.citations).toBe(citing.length);
      expect(row.conversations).toBe(answers.length);
      if (citing.length > 0)
        expect(row.first_cited).toBe(new Date(Math.min(...citing.map((a) => a.time))).toISOString());
    }
    expect(reply.body.info.cited_urls).toBeGreaterThan(0);
  });

  it('product ranking counts the shopping answers', async () => {
    const engines = new Set<string>(sim.truth.world(1).brand.engines);
    const shopping = sim.truth.answers(1, DAY).filter((a) => a.hasShopping && engines.has(a.engine));
    const reply = await api.get('/products/ranking', { ...oneDay, page_size: 50 });
    expect(reply.body.info.shopping_conversations).toBe(shopping.length);
    const top = reply.body.data[0];
    const listing = shopping.filter((a) => a.products.some((p) => p.product.id === top.id)).length;
    expect(top.visibility).toBeCloseTo(listing / shopping.length, 12);
    // The conversations endpoint shows the same shopping answers.
    const records: Array<{ has_shopping: boolean }> = [];
    for (let page = 1; ; page++) {
      const r = await api.get('/conversations', { ...oneDay, engines: [...engines], page, page_size: 100 });
      records.push(...r.body.data);
      if (r.body.data.length < 100) break;
    }
    expect(records.filter((r) => r.has_shopping).length).toBe(shopping.length);
  });

  it('SWOT answers point at real conversations', async () => {
    const statement = sim.truth.world(1).swotStatements[1]!;
    const reply = await api.get(`/swot/${statement.id}`, { ...oneDay, page_size: 100 });
    const ids = new Set(sim.truth.answers(1, DAY).map((a) => a.id));
    expect(reply.body.data.length).toBeGreaterThan(0);
    for (const row of reply.body.data) expect(ids.has(row.conversation_id)).toBe(true);
  });

  it('fanouts cited count the answers citing the domain that ran each search', async () => {
    const reply = await api.get('/fanouts/cited', { ...oneDay, domain: 'wikipedia.org', page_size: 100 });
    const engines = new Set<string>(sim.truth.world(1).brand.engines);
    const citing = sim.truth
      .answers(1, DAY)
      .filter((a) => engines.has(a.engine) && a.citations.some((c) => c.page.domain === 'wikipedia.org'));
    for (const row of reply.body.data) {
      const ran = citing.filter((a) => a.searches.includes(row.id)).length;
      expect(row.conversations).toBe(ran);
      expect(row.relevance).toBeCloseTo(ran / citing.length, 12);
    }
  });
});
