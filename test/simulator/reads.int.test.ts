import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ENGINES, startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { client, TODAY } from './client.js';

const timestamp = z.iso.datetime();
const _day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const _paged = z.object({ page: z.number().int(), page_size: z.number().int(), total_rows: z.number().int() });
const interval = z.object({ lower: z.number(), upper: z.number() });

const conversation = z
  .object({
    id: z.number().int(),
    date: timestamp,
    model: z.enum(ENGINES),
    has_shopping: z.boolean(),
    mentioned: z.boolean(),
    recommended: z.boolean().optional(),
    position: z.number().int().optional(),
    recommendation_position: z.number().int().optional(),
    fact_check_passed: z.boolean().optional(),
    brands: z.array(
      z
        .object({
          name: z.string(),
          website: z.string().optional(),
          position: z.number().int(),
          is_own_brand: z.boolean(),
        })
        .strict(),
    ),
  })
  .strict();

const brandEntry = z
  .object({
    name: z.string(),
    website: z.string().optional(),
    is_own_brand: z.boolean(),
    conversations: z.number().int(),
    visibility: z.number().min(0).max(1),
    change: z.number().optional(),
    confidence_interval: interval.optional(),
    share_of_voice: z.number().optional(),
  })
  .strict();

const visibilityRow = z
  .object({
    topic_id: z.number().int(),
    name: z.string(),
    conversations: z.number().int(),
    days: z.number().int(),
    visibility: z.number().min(0).max(1),
    change: z.number().optional(),
    confidence_interval: interval.optional(),
    share_of_voice: z.number().optional(),
    brands: z.array(brandEntry),
    scenarios: z
      .array(
        z
          .object({
            scenario_id: z.number().int(),
            text: z.string(),
            conversations: z.number().int(),
            days: z.number().int(),
            visibility: z.number(),
            change: z.number().optional(),
            confidence_interval: interval.optional(),
            share_of_voice: z.number().optional(),
            brands: z.array(brandEntry),
          })
          .strict(),
      )
      .optional(),
  })
  .strict();

const trackedUrl = z
  .object({
    id: z.number().int(),
    url: z.string(),
    title: z.string(),
    created_at: timestamp,
    citations: z.number().int(),
    conversations: z.number().int(),
    citation_rate: z.number().min(0).max(1),
    first_cited: timestamp.optional(),
    group: z.object({ id: z.number().int(), name: z.string() }).strict().optional(),
  })
  .strict();

let sim: RunningSimulator;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sim = await startSimulator({ today: TODAY, seed: 7, scale: 60 });
  api = client(sim, 1);
});
afterAll(() => sim.close());

describe('conversations (13)', () => {
  it('pages newest first with total_rows over the range, and every record has the spec shape', async () => {
    const range = { start_date: '2026-11-18', end_date: '2026-11-20', page_size: 100 };
    const first = await api.get('/conversations', range);
    expect(first.status).toBe(200);
    const total = sim.truth.totalRows(1, '2026-11-18', '2026-11-20');
    expect(first.body.info).toEqual({ page: 1, page_size: 100, total_rows: total });
    z.array(conversation).parse(first.body.data);
    const ids: number[] = [];
    let previous = Infinity;
    for (let page = 1; page <= Math.ceil(total / 100); page++) {
      const reply = await api.get('/conversations', { ...range, page });
      for (const record of reply.body.data) {
        const time = Date.parse(record.date);
        expect(time).toBeLessThanOrEqual(previous);
        previous = time;
        ids.push(record.id);
      }
    }
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    const beyond = await api.get('/conversations', { ...range, page: Math.ceil(total / 100) + 1 });
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.info.total_rows).toBe(total);
  });

  it('without a range or page size, pages by 20 over the 30 days ending today (docs/simulator.md)', async () => {
    const reply = await api.get('/conversations');
    const total = sim.truth.totalRows(1, '2026-10-22', TODAY);
    expect(reply.body.info).toEqual({ page: 1, page_size: 20, total_rows: total });
    expect(reply.body.data).toHaveLength(Math.min(20, total));
  });

  it('sorts oldest first on request and filters by mentioned, topic and scenario', async () => {
    const oldest = await api.get('/conversations', {
      start_date: '2026-11-19',
      end_date: '2026-11-19',
      sort: 'oldest',
      page_size: 5,
    });
    const answers = sim.truth.answers(1, '2026-11-19');
    expect(oldest.body.data.map((r: { id: number }) => r.id)).toEqual(answers.slice(0, 5).map((a) => a.id));

    const mentioned = await api.get('/conversations', {
      start_date: '2026-11-19',
      end_date: '2026-11-19',
      mentioned: true,
      page_size: 100,
    });
    expect(mentioned.body.info.total_rows).toBe(answers.filter((a) => a.mentioned).length);
    expect(mentioned.body.data.every((r: { mentioned: boolean }) => r.mentioned)).toBe(true);

    const topicId = answers[0]!.topicId;
    const byTopic = await api.get('/conversations', {
      start_date: '2026-11-19',
      end_date: '2026-11-19',
      topic_id: topicId,
      page_size: 100,
    });
    expect(byTopic.body.info.total_rows).toBe(answers.filter((a) => a.topicId === topicId).length);

    const scenarioId = answers[0]!.scenarioId;
    const byScenario = await api.get('/conversations', {
      start_date: '2026-11-19',
      end_date: '2026-11-19',
      scenario_id: scenarioId,
      recommended: false,
    });
    expect(byScenario.body.info.total_rows).toBe(
      answers.filter((a) => a.scenarioId === scenarioId && !a.recommended).length,
    );
  });

  it('treats an end day as its whole day and datetimes as exact bounds', async () => {
    const answers = sim.truth.answers(1, '2026-11-19');
    const wholeDay = await api.get('/conversations', { start_date: '2026-11-19', end_date: '2026-11-19' });
    expect(wholeDay.body.info.total_rows).toBe(answers.length);
    const morning = await api.get('/conversations', {
      start_date: '2026-11-19T00:00:00Z',
      end_date: '2026-11-19T11:59:59.999Z',
    });
    const cut = Date.parse('2026-11-19T12:00:00Z');
    expect(morning.body.info.total_rows).toBe(answers.filter((a) => a.time < cut).length);
    expect(morning.body.info.total_rows).toBeGreaterThan(0);
    expect(morning.body.info.total_rows).toBeLessThan(answers.length);
  });

  it('defaults to every engine and filters by the engines sent', async () => {
    const answers = sim.truth.answers(1, '2026-11-19');
    const engines = sim.truth.world(1).brand.engines.slice(0, 2);
    const reply = await api.get('/conversations', { start_date: '2026-11-19', end_date: '2026-11-19', engines });
    expect(reply.body.info.total_rows).toBe(answers.filter((a) => engines.includes(a.engine)).length);
  });
});

describe('reports', () => {
  it('visibility by topic (16) has its shape, info.query with defaults, and scenarios on request', async () => {
    const reply = await api.get('/reports/visibility/topics', {
      start_date: '2026-11-19',
      end_date: '2026-11-19',
      include_scenarios: true,
    });
    expect(reply.status).toBe(200);
    z.array(visibilityRow).parse(reply.body.data);
    expect(reply.body.info.total_rows).toBe(reply.body.data.length);
    expect(reply.body.info.query).toEqual({
      start_date: '2026-11-19',
      end_date: '2026-11-19',
      engines: sim.truth.world(1).brand.engines,
      include_scenarios: true,
    });
    for (const row of reply.body.data) {
      expect(row.scenarios.length).toBeGreaterThan(0);
      expect(row.brands[0].is_own_brand).toBe(true);
      expect(row.brands.length).toBeLessThanOrEqual(6);
    }
    const plain = await api.get('/reports/visibility/topics', { start_date: '2026-11-19', end_date: '2026-11-19' });
    expect(plain.body.data[0].scenarios).toBeUndefined();
  });

  it('citations (17): one row per period, per-domain series beside it, ownership summary', async () => {
    const reply = await api.get('/reports/citations', {
      start_date: '2026-11-01',
      end_date: '2026-11-20',
      period: 'week',
      domains: ['reddit.com', 'wikipedia.org'],
    });
    expect(reply.status).toBe(200);
    const all = reply.body.data.filter((r: { domain?: string }) => r.domain === undefined);
    expect(all.map((r: { date: string }) => r.date)).toEqual(['2026-10-26', '2026-11-02', '2026-11-09', '2026-11-16']);
    expect(reply.body.data.filter((r: { domain?: string }) => r.domain === 'reddit.com')).toHaveLength(4);
    expect(reply.body.info.total_rows).toBe(12);
    const summary = reply.body.info.summary;
    expect(summary.occurrences).toBe(all.reduce((s: number, r: { occurrences: number }) => s + r.occurrences, 0));
    expect(summary.by_ownership.reduce((s: number, r: { occurrences: number }) => s + r.occurrences, 0)).toBe(
      summary.occurrences,
    );
    for (const entry of summary.by_ownership)
      expect(entry.share).toBeCloseTo(entry.occurrences / summary.occurrences, 10);
    const monthly = await api.get('/reports/citations', {
      start_date: '2026-10-25',
      end_date: '2026-11-20',
      period: 'month',
    });
    expect(monthly.body.data.map((r: { date: string }) => r.date)).toEqual(['2026-10-01', '2026-11-01']);
    const second = monthly.body.data[1];
    expect(second.change).toBeCloseTo(
      (second.occurrences - monthly.body.data[0].occurrences) / monthly.body.data[0].occurrences,
      10,
    );
  });

  it('domain detail (18) has its shape and 404s for a domain without citations', async () => {
    const reply = await api.get('/citations/domains/reddit.com', { start_date: '2026-11-10', end_date: '2026-11-20' });
    expect(reply.status).toBe(200);
    const detail = reply.body.data;
    expect(detail.domain).toBe('reddit.com');
    expect(detail.is_first_party).toBe(false);
    const sum = (rows: Array<{ occurrences: number }>) => rows.reduce((s, r) => s + r.occurrences, 0);
    expect(sum(detail.by_model)).toBe(detail.occurrences);
    expect(sum(detail.by_topic)).toBe(detail.occurrences);
    expect(sum(detail.by_scenario)).toBe(detail.occurrences);
    expect(sum(detail.over_time)).toBe(detail.occurrences);
    for (const point of detail.over_time) expect(point.cited_occurrences).toBeLessThanOrEqual(point.occurrences);
    expect(reply.body.info.query.start_date).toBe('2026-11-10');
    const own = await api.get(`/citations/domains/${sim.truth.world(1).brand.website}`);
    expect(own.body.data.is_first_party).toBe(true);
    const none = await api.get('/citations/domains/never-cited.example');
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('not_found');
  });

  it('product ranking (19): ranks by the metric, asc reverses, page_size up to 50', async () => {
    const desc = await api.get('/products/ranking', { page_size: 50 });
    expect(desc.status).toBe(200);
    const rows = desc.body.data;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r: { rank: number }) => r.rank)).toEqual(rows.map((_: unknown, i: number) => i + 1));
    for (let i = 1; i < rows.length; i++) expect(rows[i].visibility).toBeLessThanOrEqual(rows[i - 1].visibility);
    expect(rows.every((r: { label: string }) => r.label === sim.truth.world(1).brand.name)).toBe(true);
    expect(desc.body.info.shopping_conversations).toBeGreaterThan(0);
    const asc = await api.get('/products/ranking', { page_size: 50, order: 'asc' });
    expect(asc.body.data.map((r: { id: number }) => r.id)).toEqual(
      [...rows].reverse().map((r: { id: number }) => r.id),
    );
    const competitors = await api.get('/products/ranking', {
      subject: 'competitor',
      metric: 'recommendation',
      page_size: 5,
    });
    expect(competitors.body.data).toHaveLength(5);
    expect(competitors.body.data.some((r: { label: string }) => r.label === sim.truth.world(1).brand.name)).toBe(false);
  });
});

describe('catalogs', () => {
  it('tracked URLs (3): counts, groups, search, sort', async () => {
    const reply = await api.get('/tracked-urls', { page_size: 100 });
    expect(reply.status).toBe(200);
    z.array(trackedUrl).parse(reply.body.data);
    const rows = reply.body.data;
    expect(reply.body.info.citations).toBe(rows.reduce((s: number, r: { citations: number }) => s + r.citations, 0));
    expect(reply.body.info.cited_urls).toBe(rows.filter((r: { citations: number }) => r.citations > 0).length);
    expect(reply.body.info.cited_urls).toBeGreaterThan(0);
    const group = rows.find((r: { group?: { id: number } }) => r.group)!.group;
    const grouped = await api.get('/tracked-urls', { group_id: group.id, page_size: 100 });
    expect(grouped.body.data.every((r: { group?: { id: number } }) => r.group?.id === group.id)).toBe(true);
    const ungrouped = await api.get('/tracked-urls', { ungrouped: true, page_size: 100 });
    expect(ungrouped.body.data.length).toBeGreaterThan(0);
    expect(ungrouped.body.data.every((r: { group?: unknown }) => r.group === undefined)).toBe(true);
    const bySearch = await api.get('/tracked-urls', { search: '/blog/' });
    expect(bySearch.body.data.every((r: { url: string }) => r.url.includes('/blog/'))).toBe(true);
    const byCitations = await api.get('/tracked-urls', { sort: 'citations', order: 'desc', page_size: 100 });
    const counts = byCitations.body.data.map((r: { citations: number }) => r.citations);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });

  it('competitors (7): confirmed only, or with the suggestions', async () => {
    const confirmed = await api.get('/competitors', { confirmed: true });
    const all = await api.get('/competitors', { confirmed: false });
    expect(confirmed.body.data.every((c: { is_actual: boolean }) => c.is_actual)).toBe(true);
    expect(all.body.data.some((c: { is_actual: boolean }) => !c.is_actual)).toBe(true);
    expect(all.body.info.total_rows).toBe(all.body.data.length);
    expect(all.body.info.total_rows).toBeGreaterThan(confirmed.body.info.total_rows);
  });

  it("templates (10): newest first, filters, and the platform's templates for a brand with none", async () => {
    const own = await api.get('/templates', { page_size: 100 });
    const dates = own.body.data.map((t: { created_at: string }) => t.created_at);
    expect(dates).toEqual([...dates].sort().reverse());
    const briefs = await api.get('/templates', { type: 'brief' });
    expect(briefs.body.data.every((t: { type: string }) => t.type === 'brief')).toBe(true);
    const search = await api.get('/templates', { title: own.body.data[0].title.slice(0, 6) });
    expect(search.body.data.length).toBeGreaterThan(0);
    const platform = await client(sim, 2).get('/templates');
    expect(platform.body.data.map((t: { title: string }) => t.title)).toContain('How-to guide');
  });

  it('articles (11) count statuses; content analyses (12) carry total_rows only', async () => {
    const articles = await api.get('/articles', { page_size: 100 });
    const statuses = articles.body.data.map((a: { status: string }) => a.status);
    expect(articles.body.info.draft).toBe(statuses.filter((s: string) => s === 'draft').length);
    expect(articles.body.info.published).toBe(statuses.filter((s: string) => s === 'published').length);
    const drafts = await api.get('/articles', { filter: 'draft' });
    expect(drafts.body.info.total_rows).toBe(articles.body.info.draft);
    const analyses = await api.get('/content-analyses', { page_size: 5, page: 2 });
    expect(analyses.body.data).toHaveLength(5);
    expect(Object.keys(analyses.body.info)).toEqual(['total_rows']);
  });

  it('fanouts by phrase (14) and cited (15); SWOT answers (20)', async () => {
    const phrase = sim.truth.world(1).phrases[0]!;
    const byPhrase = await api.get('/fanouts/by-phrase', { phrase });
    expect(
      byPhrase.body.data.every((s: { query: string }) => s.query.toLowerCase().includes(phrase.toLowerCase())),
    ).toBe(true);
    const cited = await api.get('/fanouts/cited', { domain: 'reddit.com', page_size: 100 });
    expect(cited.status).toBe(200);
    expect(cited.body.data.length).toBeGreaterThan(0);
    for (const row of cited.body.data) expect(row.relevance).toBeGreaterThan(0);
    const statement = sim.truth.world(1).swotStatements[0]!;
    const swot = await api.get(`/swot/${statement.id}`, { page_size: 100 });
    expect(swot.status).toBe(200);
    expect(swot.body.info.statement).toEqual({
      id: statement.id,
      text: statement.text,
      mentions: swot.body.info.total_rows,
    });
    expect(swot.body.info.type).toBe(statement.type);
    const dates = swot.body.data.map((r: { date: string }) => r.date);
    expect(dates).toEqual([...dates].sort().reverse());
    const wrongType = await api.get(`/swot/${statement.id}`, {
      type: statement.type === 'threats' ? 'strengths' : 'threats',
    });
    expect(wrongType.body.info.total_rows).toBe(0);
    expect((await api.get('/swot/999999999')).status).toBe(404);
  });
});
