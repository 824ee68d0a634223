import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { client, TODAY } from './client.js';

const REQUESTS: Array<[string, Record<string, string | string[]>]> = [
  ['/conversations', { start_date: '2026-11-01', page: '3', page_size: '100' }],
  ['/reports/visibility/topics', { include_scenarios: 'true' }],
  ['/reports/citations', { period: 'week', domains: ['reddit.com'] }],
  ['/citations/domains/wikipedia.org', {}],
  ['/tracked-urls', { page_size: '100' }],
  ['/products/ranking', { subject: 'competitor' }],
  ['/competitors', { confirmed: 'false' }],
  ['/templates', {}],
  ['/articles', {}],
  ['/content-analyses', {}],
  ['/fanouts/cited', { domain: 'reddit.com' }],
];

async function bodies(seed: number): Promise<string[]> {
  const sim = await startSimulator({ today: TODAY, seed, scale: 50 });
  try {
    const out: string[] = [];
    for (const brand of sim.brands) {
      const api = client(sim, brand);
      for (const [path, query] of REQUESTS) out.push((await api.get(path, query)).text);
      const statement = sim.truth.world(brand).swotStatements[0]!;
      out.push((await api.get(`/swot/${statement.id}`)).text);
    }
    return out;
  } finally {
    await sim.close();
  }
}

describe('determinism', () => {
  it('gives byte-identical bodies for the same seed and today, and other bodies for another seed', async () => {
    const first = await bodies(11);
    const second = await bodies(11);
    expect(second).toEqual(first);
    const other = await bodies(12);
    expect(other.filter((body, i) => body !== first[i]).length).toBeGreaterThan(first.length / 2);
  });

  it('gives the same answers for a date whatever the today and the days asked', async () => {
    const a = await startSimulator({ today: '2026-11-20', days: 30, scale: 50 });
    const b = await startSimulator({ today: '2026-11-25', days: 60, scale: 50 });
    try {
      const query = { start_date: '2026-11-15', end_date: '2026-11-15', page_size: '100' };
      const fromA = await client(a, 2).get('/conversations', query);
      const fromB = await client(b, 2).get('/conversations', query);
      expect(fromA.body.info.total_rows).toBeGreaterThan(0);
      expect(fromB.text).toBe(fromA.text);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
