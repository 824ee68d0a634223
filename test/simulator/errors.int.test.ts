import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { client, expectEnvelope, TODAY } from './client.js';

let sim: RunningSimulator;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sim = await startSimulator({ today: TODAY, scale: 20 });
  api = client(sim, 1);
});
afterAll(() => sim.close());

const field = (details: Array<{ field: string }>) => details.map((d) => d.field);

describe('auth and brand access', () => {
  it('answers 401 unauthorized without the key or with a wrong one', async () => {
    expectEnvelope(await client(sim, 1, null).get('/competitors'), 401, 'unauthorized');
    expectEnvelope(await client(sim, 1, 'bvk_wrong').get('/competitors'), 401, 'unauthorized');
  });

  it('answers 403 brand_access_denied for the forbidden brand and unknown brands', async () => {
    expect(sim.forbiddenBrand).toBe(4);
    expectEnvelope(await client(sim, sim.forbiddenBrand).get('/competitors'), 403, 'brand_access_denied');
    expectEnvelope(await client(sim, 999).get('/conversations'), 403, 'brand_access_denied');
    expect((await client(sim, 3).get('/competitors')).status).toBe(200);
  });

  it('answers 404 not_found for an unknown route or method', async () => {
    expectEnvelope(await api.get('/no-such-thing'), 404, 'not_found');
    expectEnvelope(await api.send('POST', '/conversations', {}), 404, 'not_found');
  });
});

describe('limits answered with details naming the field', () => {
  const cases: Array<[string, string, Record<string, string | number | string[]>, string]> = [
    ['page_size above 100', '/conversations', { page_size: 101 }, 'page_size'],
    ['page_size 0', '/tracked-urls', { page_size: 0 }, 'page_size'],
    ['page 0', '/templates', { page: 0 }, 'page'],
    ['page_size above 50 for product ranking', '/products/ranking', { page_size: 51 }, 'page_size'],
    [
      'more than 20 domains',
      '/reports/citations',
      { domains: Array.from({ length: 21 }, (_, i) => `d${i}.com`) },
      'domains',
    ],
    ['a template title search over 200 characters', '/templates', { title: 'x'.repeat(201) }, 'title'],
    ['an empty template title search', '/templates', { title: '' }, 'title'],
    ['a phrase over 255 characters', '/fanouts/by-phrase', { phrase: 'x'.repeat(256) }, 'phrase'],
    ['no phrase', '/fanouts/by-phrase', {}, 'phrase'],
    ['a tracked URL search over 255 characters', '/tracked-urls', { search: 'x'.repeat(256) }, 'search'],
    ['an unknown engine', '/conversations', { engines: ['chatgpt', 'askjeeves'] }, 'engines'],
    ['an unknown ownership', '/reports/citations', { ownership: ['mine'] }, 'ownership'],
    ['an unknown period', '/reports/citations', { period: 'year' }, 'period'],
    ['a bad date', '/conversations', { start_date: '2026-02-30' }, 'start_date'],
    ['a start after the end', '/conversations', { start_date: '2026-11-20', end_date: '2026-11-19' }, 'start_date'],
    ['a bad boolean', '/competitors', { confirmed: 'yes' }, 'confirmed'],
    ['an unknown sort', '/conversations', { sort: 'random' }, 'sort'],
    ['an unknown metric', '/products/ranking', { metric: 'clicks' }, 'metric'],
    ['an unknown SWOT type', '/swot/100001', { type: 'risks' }, 'type'],
    ['an unknown template type', '/templates', { type: 'memo' }, 'type'],
    ['an unknown query parameter', '/conversations', { start: '2026-11-01' }, 'start'],
  ];
  for (const [name, path, query, wire] of cases) {
    it(`400 validation_error for ${name}`, async () => {
      const details = expectEnvelope(await api.get(path, query), 400, 'validation_error');
      expect(field(details)).toContain(wire);
    });
  }

  it('accepts the edges of each limit', async () => {
    expect((await api.get('/conversations', { page_size: 100 })).status).toBe(200);
    expect((await api.get('/products/ranking', { page_size: 50 })).status).toBe(200);
    expect((await api.get('/templates', { title: 'x'.repeat(200) })).status).toBe(200);
    expect(
      (await api.get('/reports/citations', { domains: Array.from({ length: 20 }, (_, i) => `d${i}.com`) })).status,
    ).toBe(200);
    expect((await api.get('/fanouts/by-phrase', { phrase: 'x'.repeat(255) })).status).toBe(200);
  });

  it('fanouts cited needs exactly one of url and domain', async () => {
    expect(field(expectEnvelope(await api.get('/fanouts/cited'), 400, 'validation_error'))).toEqual(['url', 'domain']);
    expectEnvelope(
      await api.get('/fanouts/cited', { url: 'https://reddit.com/x', domain: 'reddit.com' }),
      400,
      'validation_error',
    );
  });

  it('reports every problem of a request at once', async () => {
    const details = expectEnvelope(
      await api.get('/conversations', { page: 0, page_size: 1000, mentioned: 'maybe' }),
      400,
      'validation_error',
    );
    expect(field(details).sort()).toEqual(['mentioned', 'page', 'page_size']);
  });
});

describe('parameter names and array formats', () => {
  it('reads the wire names it is given and echoes them in info.query', async () => {
    const mapped = await startSimulator({
      today: TODAY,
      scale: 10,
      params: { start_date: 'from', end_date: 'to', engines: 'models', page_size: 'per_page' },
    });
    try {
      const api2 = client(mapped, 1);
      const ok = await api2.get('/reports/visibility/topics', {
        from: '2026-11-19',
        to: '2026-11-20',
        models: ['chatgpt', 'gemini'],
      });
      expect(ok.status).toBe(200);
      expect(ok.body.info.query).toMatchObject({ from: '2026-11-19', to: '2026-11-20', models: ['chatgpt', 'gemini'] });
      const details = expectEnvelope(
        await api2.get('/conversations', { start_date: '2026-11-19' }),
        400,
        'validation_error',
      );
      expect(field(details)).toEqual(['start_date']);
      expect(
        field(expectEnvelope(await api2.get('/conversations', { per_page: 500 }), 400, 'validation_error')),
      ).toEqual(['per_page']);
    } finally {
      await mapped.close();
    }
  });

  it('reads comma-separated arrays in the comma format, and rejects them in the repeat format', async () => {
    const comma = await startSimulator({ today: TODAY, scale: 10, arrayFormat: 'comma' });
    try {
      const ok = await client(comma, 1).get('/conversations', { engines: 'chatgpt,gemini', start_date: '2026-11-20' });
      expect(ok.status).toBe(200);
      const repeated = await client(comma, 1).get('/conversations', { engines: ['chatgpt', 'gemini'] });
      expectEnvelope(repeated, 400, 'validation_error');
    } finally {
      await comma.close();
    }
    expectEnvelope(await api.get('/conversations', { engines: 'chatgpt,gemini' }), 400, 'validation_error');
  });

  it('ignores unknown parameters when strictParams is off', async () => {
    sim.setKnobs({ strictParams: false });
    try {
      expect((await api.get('/conversations', { whatever: 1 })).status).toBe(200);
    } finally {
      sim.setKnobs({ strictParams: true });
    }
  });
});
