import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARAM_NAMES as DEFAULT_PARAM_NAMES } from '../../src/streams/registry.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { OPENAPI_DOCUMENT } from '../support/prism.js';
import { loadOpenApiDocument, type OpenApiDocument, type Operation } from './openapi-document.js';

/**
 * The simulator is bvsync's twin of the API; docs/openapi.yaml is bvsync's reading of the spec. Every answer the
 * simulator gives — reads and writes, successes and error envelopes — must validate against the document, and
 * strictly: a field the document does not name is a disagreement too.
 */

const BRAND = 1;
const DAY = '2026-11-19';

let doc: OpenApiDocument;
let sim: RunningSimulator;
/** Operations answered with a 2xx, and error statuses seen, to check that the test covers the whole document. */
const succeeded = new Set<string>();
const errorStatuses = new Set<number>();

interface Exchange {
  status: number;
  body: any;
  operation: Operation;
}

async function call(
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  options: {
    query?: Record<string, string | number | boolean | Array<string | number>>;
    body?: unknown;
    key?: string | null;
    brand?: number;
  } = {},
): Promise<Exchange> {
  const fullPath = `/customer/v1/brands/${options.brand ?? BRAND}${path}`;
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(options.query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.key !== null) headers['x-api-key'] = options.key ?? sim.apiKey;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${sim.url}${fullPath}${search.size ? `?${search}` : ''}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  const operation = doc.operationFor(method, fullPath);
  return { status: response.status, body: text ? JSON.parse(text) : undefined, operation };
}

/** Asserts the answer matches the document (leniently and strictly) and notes what it covered. */
function expectConforms(exchange: Exchange, expectedStatus?: number): void {
  const { status, body, operation } = exchange;
  if (expectedStatus !== undefined)
    expect(status, `${operation.operationId}: ${JSON.stringify(body).slice(0, 300)}`).toBe(expectedStatus);
  const problems = doc.validate(operation, status, body, false);
  const unknownFields = doc.validate(operation, status, body, true);
  expect({ operation: operation.operationId, status, problems }).toEqual({
    operation: operation.operationId,
    status,
    problems: [],
  });
  expect({ operation: operation.operationId, status, unknownFields }).toEqual({
    operation: operation.operationId,
    status,
    unknownFields: [],
  });
  if (status >= 200 && status < 300) succeeded.add(operation.operationId);
  else errorStatuses.add(status);
}

beforeAll(async () => {
  doc = loadOpenApiDocument();
  sim = await startSimulator({ seed: 11, brands: 2, days: 5, scale: 30, today: '2026-11-20', planTopicLimit: 8 });
});
afterAll(async () => {
  await sim?.close();
});

describe('docs/openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 document with the 20 operations of the spec', async () => {
    const result = await new Validator().validate(OPENAPI_DOCUMENT);
    expect(result).toEqual({ valid: true });
    expect(doc.raw.openapi).toBe('3.1.0');
    expect(doc.operations).toHaveLength(20);
  });

  it("declares bvsync's default query parameter names, and only those (plus the filters bvsync does not send)", () => {
    const declared = new Set(doc.operations.flatMap((op) => op.query.map((p) => p.name)));
    const notSent = new Set(['filter']); // the articles' array filter and the phrase search's filter group: names not shown
    expect(
      [...declared].filter((name) => !notSent.has(name) && !(DEFAULT_PARAM_NAMES as readonly string[]).includes(name)),
    ).toEqual([]);
    expect(DEFAULT_PARAM_NAMES.filter((name) => !declared.has(name))).toEqual([]);
  });
});

describe('the simulator answers as docs/openapi.yaml says', () => {
  it('every read endpoint, with the filters bvsync sends and more', async () => {
    const world = sim.truth.world(BRAND);
    const range = { start_date: DAY, end_date: DAY };
    const paging = { page: 1, page_size: 100 };
    const tracked = await call('GET', '/tracked-urls', {
      query: { ...range, ...paging, sort: 'citations', order: 'desc' },
    });
    expectConforms(tracked, 200);
    const cited = (tracked.body.data as Array<{ url: string; citations: number }>).find((page) => page.citations > 0);
    expect(cited, 'a tracked page cited on the day').toBeDefined();
    const domain = new URL(cited!.url).hostname.replace(/^www\./, '');

    expectConforms(
      await call('GET', '/tracked-urls', {
        query: { ...range, group_id: world.groups[0]!.id, search: 'a', page: 1, page_size: 3 },
      }),
      200,
    );
    expectConforms(await call('GET', '/competitors', { query: { confirmed: false } }), 200);
    expectConforms(await call('GET', '/competitors'), 200);
    expectConforms(await call('GET', '/templates', { query: paging }), 200);
    expectConforms(await call('GET', '/templates', { brand: 2, query: { type: 'brief', page: 1, page_size: 2 } }), 200);
    expectConforms(await call('GET', '/articles', { query: paging }), 200);
    expectConforms(
      await call('GET', '/articles', { query: { filter: ['draft', 'published'], page: 2, page_size: 2 } }),
      200,
    );
    expectConforms(await call('GET', '/content-analyses', { query: paging }), 200);
    expectConforms(await call('GET', '/conversations', { query: { ...range, ...paging } }), 200);
    expectConforms(
      await call('GET', '/conversations', {
        query: { ...range, mentioned: true, sort: 'oldest', page: 2, page_size: 5 },
      }),
      200,
    );
    expectConforms(await call('GET', '/fanouts/by-phrase', { query: { phrase: world.phrases[0]!, ...paging } }), 200);
    expectConforms(await call('GET', '/fanouts/cited', { query: { ...range, domain, ...paging } }), 200);
    expectConforms(await call('GET', '/fanouts/cited', { query: { ...range, url: cited!.url, ...paging } }), 200);
    expectConforms(
      await call('GET', '/reports/visibility/topics', { query: { ...range, include_scenarios: true } }),
      200,
    );
    expectConforms(
      await call('GET', '/reports/visibility/topics', { query: { start_date: '2026-11-16', end_date: DAY } }),
      200,
    );
    const citations = await call('GET', '/reports/citations', {
      query: { ...range, period: 'day', domains: [domain] },
    });
    expectConforms(citations, 200);
    expect((citations.body.data as Array<{ domain?: string }>).some((row) => row.domain === domain)).toBe(true);
    expectConforms(
      await call('GET', '/reports/citations', {
        query: {
          start_date: '2026-11-02',
          end_date: DAY,
          period: 'week',
          ownership: ['first_party', 'other'],
          sentiment: ['positive'],
        },
      }),
      200,
    );
    expectConforms(await call('GET', `/citations/domains/${domain}`, { query: range }), 200);
    expectConforms(
      await call('GET', '/products/ranking', {
        query: { ...range, metric: 'recommendation', subject: 'brand', order: 'desc', page: 1, page_size: 50 },
      }),
      200,
    );
    expectConforms(
      await call('GET', '/products/ranking', {
        query: { start_date: '2026-11-16', end_date: DAY, subject: 'competitor', order: 'asc' },
      }),
      200,
    );
    expectConforms(await call('GET', `/swot/${world.swotStatements[0]!.id}`, { query: { ...range, ...paging } }), 200);
  });

  it('every endpoint accepts each query parameter the document declares for it (the simulator refuses unknown ones)', async () => {
    const world = sim.truth.world(BRAND);
    const samples: Record<string, string | number | boolean | Array<string | number>> = {
      start_date: '2026-11-18',
      end_date: DAY,
      engines: ['chatgpt', 'perplexity'],
      topic_ids: [world.topics[0]!.id],
      group_id: world.groups[0]!.id,
      ungrouped: false,
      search: 'a',
      order: 'asc',
      confirmed: true,
      title: 'a',
      topic_id: world.topics[0]!.id,
      scenario_id: world.topics[0]!.scenarios[0]!.id,
      mentioned: true,
      recommended: false,
      include_scenarios: true,
      ownership: ['first_party'],
      content_types: ['blog_article'],
      sentiment: ['neutral'],
      first_party: false,
      period: 'week',
      domains: ['example.com'],
      metric: 'visibility',
      subject: 'brand',
      phrase: world.phrases[0]!,
      competitors: [world.competitors[0]!.id],
      page: 1,
      page_size: 10,
    };
    const deref = (schema: any): any => {
      const ref = schema?.$ref as string | undefined;
      return ref ? (doc.raw as any).components.schemas[ref.replace('#/components/schemas/', '')] : schema;
    };
    const bySchema = (operation: Operation, name: string) => {
      const schema = deref(operation.query.find((p) => p.name === name)!.schema);
      const values = (schema.enum ?? deref(schema.items)?.enum) as string[] | undefined;
      return values ? (schema.type === 'array' ? [values[0]!] : values[0]!) : undefined;
    };
    for (const operation of doc.operations.filter((op) => op.method === 'get')) {
      const query: Record<string, string | number | boolean | Array<string | number>> = {};
      for (const { name } of operation.query) {
        if (name === 'filter') continue; // names not shown; bvsync does not send them
        if (name === 'url' && operation.operationId === 'listFanoutsCited') continue; // one of url and domain
        query[name] = name === 'domain' ? 'example.com' : (samples[name] ?? bySchema(operation, name))!;
        if (name === 'type' || name === 'sort') query[name] = bySchema(operation, name)!;
      }
      const path = operation.path
        .replace('/customer/v1/brands/{brand_id}', '')
        .replace('{domain}', world.brand.website.replace(/^https?:\/\/(www\.)?/, '').replace(/\/.*$/, ''))
        .replace('{statement_id}', String(world.swotStatements[0]!.id));
      const exchange = await call('GET', path, { query });
      // A domain with no citation in the range is a 404 by the spec; anything else must be a 2xx.
      expect(
        [200, ...(operation.operationId === 'domainDetail' ? [404] : [])],
        `${operation.operationId}: ${JSON.stringify(exchange.body).slice(0, 400)}`,
      ).toContain(exchange.status);
      expectConforms(exchange);
    }
  });

  it('every write, with its bulk envelope, rejections and dry runs', async () => {
    const world = sim.truth.world(BRAND);
    const existing = world.trackedUrls[0]!;
    const trackDry = await call('POST', '/tracked-urls', {
      body: { urls: [{ url: 'https://contract.example.org/a' }, { url: `${existing.url}/` }], dry_run: true },
    });
    expectConforms(trackDry, 200);
    expect(trackDry.body.info).toMatchObject({ dry_run: true, written: 0, rejected: 1 });
    const track = await call('POST', '/tracked-urls', {
      body: {
        urls: [{ url: 'https://contract.example.org/b', title: 'B' }, { url: existing.url }],
        group_id: world.groups[0]!.id,
      },
    });
    expectConforms(track, 200);
    expect(track.body.rejected).toEqual([expect.objectContaining({ index: 1, code: 'conflict' })]);
    const missingGroup = await call('POST', '/tracked-urls', {
      body: { urls: [{ url: 'https://contract.example.org/c' }], group_id: 999_999 },
    });
    expectConforms(missingGroup, 200);
    expect(missingGroup.body.rejected[0].code).toBe('not_found');

    const created = track.body.data[0] as { id: number };
    expectConforms(
      await call('PATCH', `/tracked-urls/${created.id}`, { body: { title: 'Renamed', group_id: null } }),
      200,
    );

    const topics = await call('POST', '/topics', {
      body: {
        topics: [
          {
            name: 'Contract topic',
            type: 'prompter',
            language: 'english',
            status: 'active',
            answer_engines: [],
            persona_id: world.personas[0]!.id,
            scenarios: ['one', 'two'],
          },
          { name: world.topics[0]!.name, type: world.topics[0]!.type, language: world.topics[0]!.language },
          { name: 'Over the plan 1' },
          { name: 'Over the plan 2' },
        ],
      },
    });
    expectConforms(topics, 200);
    expect((topics.body.rejected as Array<{ code: string }>).map((r) => r.code)).toEqual(
      expect.arrayContaining(['conflict', 'plan_limit_reached']),
    );
    expectConforms(await call('POST', '/topics', { body: { topics: [{ name: 'Dry topic' }], dry_run: true } }), 200);

    const deleted = world.topics.find((topic) => topic.deleted)!;
    expectConforms(await call('POST', `/topics/${deleted.id}/restore`), 200);
    expectConforms(await call('POST', `/topics/${deleted.id}/restore`), 409);

    const suggestion = world.competitors.find((c) => !c.is_actual)!;
    const competitors = await call('POST', '/competitors', {
      body: {
        competitors: [
          { name: suggestion.name.toUpperCase(), website: suggestion.website },
          { name: 'Contract Rival', website: 'rival.example' },
          { name: world.competitors.find((c) => c.is_actual)!.name },
        ],
      },
    });
    expectConforms(competitors, 200);
    expect(competitors.body.info).toMatchObject({ written: 2, rejected: 1 });
    expectConforms(
      await call('POST', '/competitors', {
        body: { competitors: [{ name: 'Dry Rival', website: 'dry.example' }], dry_run: true },
      }),
      200,
    );

    expectConforms(
      await call('PATCH', `/personas/${world.personas[0]!.id}`, {
        body: { city: 'Lyon', properties: { goals: { main: 'x' } } },
      }),
      200,
    );
    expectConforms(
      await call('PATCH', `/tags/${world.tags[0]!.id}`, { body: { name: 'Renamed tag', color: '#12ab34' } }),
      200,
    );
  });

  it('error envelopes: 400, 401, 403, 404, 409 and 429', async () => {
    const invalid = await call('GET', '/conversations', { query: { page_size: 500 } });
    expectConforms(invalid, 400);
    expect(invalid.body.error.details).toEqual([expect.objectContaining({ field: 'page_size' })]);
    expectConforms(await call('GET', '/products/ranking', { query: { page_size: 51 } }), 400);
    expectConforms(await call('POST', '/tracked-urls', { body: { urls: [] } }), 400);
    expectConforms(await call('PATCH', `/tags/${sim.truth.world(BRAND).tags[0]!.id}`, { body: { color: 'red' } }), 400);
    expectConforms(await call('GET', '/conversations', { key: null }), 401);
    expectConforms(await call('GET', '/conversations', { key: 'bvk_wrong' }), 401);
    expectConforms(await call('GET', '/conversations', { brand: sim.forbiddenBrand }), 403);
    expectConforms(
      await call('GET', '/citations/domains/never-cited.example', { query: { start_date: DAY, end_date: DAY } }),
      404,
    );
    expectConforms(await call('PATCH', '/tracked-urls/999999999', { body: { title: 'x' } }), 404);
    expectConforms(await call('GET', '/swot/999999999'), 404);
    sim.setKnobs({ rateLimit: 1, retryAfterSeconds: 1 });
    try {
      let limited: Exchange | undefined;
      for (let i = 0; i < 5 && !limited; i++) {
        const exchange = await call('GET', '/competitors');
        if (exchange.status === 429) limited = exchange;
      }
      expect(limited, 'a 429 within 5 requests at 1 request/s').toBeDefined();
      expectConforms(limited!, 429);
    } finally {
      sim.setKnobs({ rateLimit: 0 });
    }
  });

  it('covered every operation of the document with a success, and every error status it names', () => {
    expect(doc.operations.map((op) => op.operationId).filter((id) => !succeeded.has(id))).toEqual([]);
    expect([...errorStatuses].sort()).toEqual([400, 401, 403, 404, 409, 429]);
  });
});
