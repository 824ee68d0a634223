import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { named, type NamedClient } from '../support/named-client.js';
import { BrandAccessDeniedError } from '../../src/api/errors.js';
import type { Page } from '../../src/api/paginate.js';
import type { Rejection } from '../../src/api/validate.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { parseConfig } from '../../src/configuration.js';

const TODAY = '2026-11-20';
const RANGE = { startDate: '2026-11-18', endDate: TODAY };

let sim: RunningSimulator;
let client: NamedClient;

beforeAll(async () => {
  sim = await startSimulator({ seed: 11, brands: 2, days: 5, scale: 60, today: TODAY });
  client = named(createApiClient(parseConfig({ api: { url: sim.url, apiKey: sim.apiKey, pageSize: 25 } }).api));
});

afterAll(async () => {
  await client.close();
  await sim.close();
});

async function all<T>(
  pages: AsyncIterable<Page<T>>,
): Promise<{ records: T[]; rejects: Rejection[]; totalRows: number | undefined; pages: number }> {
  const records: T[] = [];
  const rejects: Rejection[] = [];
  let totalRows: number | undefined;
  let count = 0;
  for await (const page of pages) {
    records.push(...page.records);
    rejects.push(...page.rejects);
    totalRows = page.totalRows;
    count += 1;
  }
  return { records, rejects, totalRows, pages: count };
}

function expectComplete(result: {
  records: Array<{ id: number }>;
  rejects: Rejection[];
  totalRows: number | undefined;
}): void {
  expect(result.rejects).toEqual([]);
  expect(result.records.length).toBeGreaterThan(0);
  expect(result.records.length).toBe(result.totalRows);
  expect(new Set(result.records.map((r) => r.id)).size).toBe(result.records.length);
}

describe('every read endpoint against the simulator', () => {
  it('3 tracked URLs', async () => {
    const result = await all(client.trackedUrls(1, RANGE));
    expectComplete(result);
    expect(result.records.some((r) => r.citations > 0)).toBe(true);
  });

  it('7 competitors, with and without suggestions', async () => {
    const everyone = await client.competitors(1, { confirmed: false });
    const confirmed = await client.competitors(1, { confirmed: true });
    expect(everyone.rejects).toEqual([]);
    expect(everyone.records.length).toBe(everyone.totalRows);
    expect(confirmed.records.every((c) => c.is_actual)).toBe(true);
    expect(everyone.records.length).toBeGreaterThan(confirmed.records.length);
  });

  it('10 templates, 11 articles, 12 content analyses', async () => {
    expectComplete(await all(client.templates(1)));
    expectComplete(await all(client.articles(1)));
    expectComplete(await all(client.contentAnalyses(1)));
    const briefs = await all(client.templates(1, { type: 'brief' }));
    expect(briefs.records.every((t) => t.type === 'brief')).toBe(true);
  });

  it('13 conversations, over several pages, matching the simulator', async () => {
    const result = await all(client.conversations(1, RANGE));
    expectComplete(result);
    expect(result.pages).toBeGreaterThan(2);
    expect(result.totalRows).toBe(sim.truth.totalRows(1, RANGE.startDate, RANGE.endDate));
    const mentioned = await all(client.conversations(1, { ...RANGE, mentioned: true }));
    expect(mentioned.records.every((c) => c.mentioned)).toBe(true);
  });

  it('14 and 15 search phrases by phrase and by cited domain', async () => {
    const phrase = sim.truth.world(1).phrases[0]!;
    const byPhrase = await all(client.fanoutsByPhrase(1, { phrase }));
    expectComplete(byPhrase);
    const domain = sim.truth.world(1).basis.ownPages[0]!.domain;
    const cited = await all(client.fanoutsCited(1, { ...RANGE, domain }));
    expectComplete(cited);
  });

  it('16 visibility by topic, with scenarios', async () => {
    const report = await client.visibilityTopics(1, { ...RANGE, includeScenarios: true });
    expect(report.rejects).toEqual([]);
    expect(report.records.length).toBe(report.totalRows);
    expect(report.records[0]!.scenarios?.length).toBeGreaterThan(0);
    expect(report.info.query).toMatchObject({
      start_date: RANGE.startDate,
      end_date: RANGE.endDate,
      include_scenarios: true,
    });
  });

  it('17 citations, with the ownership summary', async () => {
    const report = await client.citations(1, { ...RANGE, period: 'day' });
    expect(report.rejects).toEqual([]);
    expect(report.records.map((r) => r.date)).toEqual(['2026-11-18', '2026-11-19', '2026-11-20']);
    expect(report.ownership.length).toBeGreaterThan(0);
  });

  it('18 domain detail, and the 404 of a domain without citations as an empty result', async () => {
    const domain = sim.truth.world(1).basis.ownPages[0]!.domain;
    const detail = await client.domainDetail(1, domain, RANGE);
    expect(detail.empty).toBe(false);
    expect(detail.rejects).toEqual([]);
    expect(detail.records[0]!.domain).toBe(domain);
    const none = await client.domainDetail(1, 'never-cited.example', RANGE);
    expect(none).toMatchObject({ empty: true, records: [] });
  });

  it('19 product ranking (page size capped at 50)', async () => {
    const result = await all(
      client.productRanking(1, { ...RANGE, metric: 'visibility', subject: 'brand', pageSize: 100 }),
    );
    expectComplete(result);
    const log = sim.requestLog().filter((r) => r.path.endsWith('/products/ranking'));
    expect(log.every((r) => r.query.page_size === '50' && r.status === 200)).toBe(true);
  });

  it('20 SWOT answers of a statement', async () => {
    const statement = sim.truth.world(1).swotStatements[0]!;
    const pages = client.swotAnswers(1, statement.id, RANGE);
    const result = await all(pages);
    expect(result.rejects).toEqual([]);
    expect(result.records.length).toBe(result.totalRows);
  });

  it('brand_access_denied fails fast, with one request and no retry', async () => {
    sim.clearRequestLog();
    const error = await all(client.conversations(sim.forbiddenBrand, RANGE)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrandAccessDeniedError);
    expect((error as BrandAccessDeniedError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sim.requestLog()).toHaveLength(1);
  });
});
