import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { client, expectEnvelope, TODAY } from './client.js';

let sim: RunningSimulator;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sim = await startSimulator({ today: TODAY, scale: 30, planTopicLimit: 8 });
  api = client(sim, 1);
});
afterAll(() => sim.close());

const trackedCount = async () => (await api.get('/tracked-urls')).body.info.total_rows as number;

describe('tracked URLs (1, 2)', () => {
  it('tracks pages, titles untitled ones, and rejects addresses already tracked in normal form', async () => {
    const before = await trackedCount();
    const existing = sim.truth.world(1).trackedUrls[0]!.url;
    const reply = await api.send('POST', '/tracked-urls', {
      urls: [
        { url: 'https://example.org/new-page', title: 'New page' },
        { url: `${existing}/` },
        { url: 'https://example.org/other-page/' },
        { url: 'https://example.org/new-page/' },
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.info).toEqual({ dry_run: false, written: 2, rejected: 2 });
    expect(reply.body.rejected.map((r: { index: number; code: string }) => [r.index, r.code])).toEqual([
      [1, 'conflict'],
      [3, 'conflict'],
    ]);
    expect(reply.body.data.map((p: { url: string }) => p.url)).toEqual([
      'https://example.org/new-page',
      'https://example.org/other-page',
    ]);
    expect(reply.body.data[1].title).toBe('other page | example.org');
    expect(await trackedCount()).toBe(before + 2);
  });

  it('writes nothing on a dry run, but answers as if it had', async () => {
    const before = await trackedCount();
    const reply = await api.send('POST', '/tracked-urls', {
      urls: [{ url: 'https://example.org/dry' }],
      dry_run: true,
    });
    expect(reply.body.info).toEqual({ dry_run: true, written: 0, rejected: 0 });
    expect(reply.body.data).toHaveLength(1);
    expect(await trackedCount()).toBe(before);
    const real = await api.send('POST', '/tracked-urls', { urls: [{ url: 'https://example.org/dry' }] });
    expect(real.body.data[0].id).toBe(reply.body.data[0].id);
  });

  it('puts pages in a group, rejects an unknown group item by item, and enforces 1..200 urls', async () => {
    const group = sim.truth.world(1).groups[0]!;
    const grouped = await api.send('POST', '/tracked-urls', {
      urls: [{ url: 'https://example.org/g1' }],
      group_id: group.id,
    });
    expect(grouped.body.data[0].group).toEqual({ id: group.id, name: group.name });
    const unknown = await api.send('POST', '/tracked-urls', { urls: [{ url: 'https://example.org/g2' }], group_id: 1 });
    expect(unknown.body.rejected).toEqual([{ index: 0, code: 'not_found', message: 'no group 1' }]);
    const tooMany = Array.from({ length: 201 }, (_, i) => ({ url: `https://example.org/p${i}` }));
    expect(
      expectEnvelope(await api.send('POST', '/tracked-urls', { urls: tooMany }), 400, 'validation_error')[0]!.field,
    ).toBe('urls');
    expect(
      expectEnvelope(await api.send('POST', '/tracked-urls', { urls: [] }), 400, 'validation_error')[0]!.field,
    ).toBe('urls');
    expect(
      expectEnvelope(await api.send('POST', '/tracked-urls', { urls: [{ title: 'x' }] }), 400, 'validation_error')[0]!
        .field,
    ).toBe('urls[0].url');
  });

  it('updates a page: title, url (409 on a tracked one), group (null takes it out)', async () => {
    const pages = sim.truth.world(1).trackedUrls;
    const page = pages.find((p) => p.group_id !== undefined)!;
    const reply = await api.send('PATCH', `/tracked-urls/${page.id}`, { title: 'Renamed', group_id: null });
    expect(reply.status).toBe(200);
    expect(reply.body.title).toBe('Renamed');
    expect(reply.body.group).toBeUndefined();
    expectEnvelope(await api.send('PATCH', `/tracked-urls/${page.id}`, { url: `${pages[1]!.url}/` }), 409, 'conflict');
    expectEnvelope(await api.send('PATCH', '/tracked-urls/1', { title: 'x' }), 404, 'not_found');
  });
});

describe('topics (4, 5)', () => {
  it('creates topics, rejecting same name+type+language and past the plan limit', async () => {
    const world = sim.truth.world(1);
    const active = world.topics.filter((t) => !t.deleted);
    const existing = active[0]!;
    const reply = await api.send('POST', '/topics', {
      topics: [
        {
          name: 'Brand new',
          type: 'prompter',
          language: 'english',
          status: 'active',
          answer_engines: [],
          persona_id: world.personas[0]!.id,
          scenarios: ['one?', 'two?'],
        },
        { name: existing.name, type: existing.type, language: existing.language },
        { name: existing.name, type: existing.type, language: existing.language === 'english' ? 'klingon' : 'english' },
        { name: 'Over the limit' },
        { name: 'Unknown persona', persona_id: 5 },
      ],
    });
    expect(reply.status).toBe(200);
    expect(active.length).toBe(6);
    expect(reply.body.rejected.map((r: { index: number; code: string }) => [r.index, r.code])).toEqual([
      [1, 'conflict'],
      [3, 'plan_limit_reached'],
      [4, 'not_found'],
    ]);
    expect(reply.body.info).toEqual({ dry_run: false, written: 2, rejected: 3 });
    const created = reply.body.data[0];
    expect(created.scenarios.map((s: { text: string; topic_id: number }) => [s.text, s.topic_id])).toEqual([
      ['one?', created.id],
      ['two?', created.id],
    ]);
  });

  it('enforces 20 topics and 100 scenarios per request, and known engines', async () => {
    const many = Array.from({ length: 21 }, (_, i) => ({ name: `t${i}` }));
    expect(expectEnvelope(await api.send('POST', '/topics', { topics: many }), 400, 'validation_error')[0]!.field).toBe(
      'topics',
    );
    const scenarios = Array.from({ length: 101 }, (_, i) => `s${i}`);
    expect(
      expectEnvelope(
        await api.send('POST', '/topics', { topics: [{ name: 'x', scenarios }] }),
        400,
        'validation_error',
      )[0]!.field,
    ).toBe('topics[0].scenarios');
    const engines = expectEnvelope(
      await api.send('POST', '/topics', { topics: [{ name: 'x', answer_engines: ['nope'] }] }),
      400,
      'validation_error',
    );
    expect(engines[0]!.field).toBe('topics[0].answer_engines');
  });

  it('restores a deleted topic with its scenarios, then answers 409 conflict', async () => {
    const deleted = sim.truth.world(2).topics.find((t) => t.deleted)!;
    const reply = await client(sim, 2).send('POST', `/topics/${deleted.id}/restore`);
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(deleted.id);
    expect(reply.body.scenarios.length).toBeGreaterThan(0);
    expect(reply.body.deleted).toBeUndefined();
    expectEnvelope(await client(sim, 2).send('POST', `/topics/${deleted.id}/restore`), 409, 'conflict');
    expectEnvelope(await client(sim, 2).send('POST', '/topics/12345/restore'), 404, 'not_found');
  });
});

describe('competitors (6), personas (8), tags (9)', () => {
  it('confirms a suggestion by name (any case) with its id, creates new ones, rejects tracked names', async () => {
    const world = sim.truth.world(3);
    const suggestion = world.competitors.find((c) => !c.is_actual)!;
    const tracked = world.competitors.find((c) => c.is_actual)!;
    const api3 = client(sim, 3);
    const reply = await api3.send('POST', '/competitors', {
      competitors: [
        { name: suggestion.name.toUpperCase(), website: suggestion.website },
        { name: tracked.name.toLowerCase(), website: 'x.com' },
        { name: 'Brand New Rival', website: 'rival.example' },
      ],
    });
    expect(reply.body.rejected.map((r: { index: number; code: string }) => [r.index, r.code])).toEqual([
      [1, 'conflict'],
    ]);
    expect(reply.body.data[0]).toMatchObject({ id: suggestion.id, is_actual: true });
    const confirmed = await api3.get('/competitors', { confirmed: true });
    const names = confirmed.body.data.map((c: { name: string }) => c.name);
    expect(names).toContain(suggestion.name);
    expect(names).toContain('Brand New Rival');
    const tooMany = Array.from({ length: 51 }, (_, i) => ({ name: `c${i}`, website: 'w' }));
    expectEnvelope(await api3.send('POST', '/competitors', { competitors: tooMany }), 400, 'validation_error');
  });

  it('patches only the persona fields sent, replacing each properties section sent', async () => {
    const persona = sim.truth.world(1).personas[0]!;
    const before = structuredClone(persona);
    const reply = await api.send('PATCH', `/personas/${persona.id}`, {
      city: 'Porto',
      properties: { interests: { primary: 'tents' } },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      ...before,
      city: 'Porto',
      properties: { ...before.properties, interests: { primary: 'tents' } },
    });
    expectEnvelope(await api.send('PATCH', `/personas/${persona.id}`, { name: 5 }), 400, 'validation_error');
    expectEnvelope(await api.send('PATCH', '/personas/1', {}), 404, 'not_found');
  });

  it('patches a tag and checks its colour', async () => {
    const tag = sim.truth.world(1).tags[0]!;
    const reply = await api.send('PATCH', `/tags/${tag.id}`, { color: '#00ff88' });
    expect(reply.body).toEqual({ id: tag.id, name: tag.name, color: '#00ff88' });
    expect(
      expectEnvelope(await api.send('PATCH', `/tags/${tag.id}`, { color: 'green' }), 400, 'validation_error')[0]!.field,
    ).toBe('color');
  });
});

describe('idempotency', () => {
  it('replays the first answer for the same key and value, without writing twice, for 24 hours', async () => {
    const before = await trackedCount();
    const body = { urls: [{ url: 'https://example.org/idem' }] };
    const first = await api.send('POST', '/tracked-urls', body, { 'Idempotency-Key': 'abc-1' });
    const second = await api.send('POST', '/tracked-urls', body, { 'Idempotency-Key': 'abc-1' });
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await trackedCount()).toBe(before + 1);
    const other = await api.send('POST', '/tracked-urls', body, { 'Idempotency-Key': 'abc-2' });
    expect(other.body.rejected[0].code).toBe('conflict');
    sim.advanceClock(1);
    const expired = await api.send('POST', '/tracked-urls', body, { 'Idempotency-Key': 'abc-1' });
    expect(expired.body.rejected[0].code).toBe('conflict');
  });

  it('uses the header name it is given', async () => {
    const custom = await startSimulator({ today: TODAY, scale: 5, idempotencyHeader: 'X-Request-Token' });
    try {
      const api2 = client(custom, 1);
      const body = { urls: [{ url: 'https://example.org/custom' }] };
      const first = await api2.send('POST', '/tracked-urls', body, { 'X-Request-Token': 't1' });
      const again = await api2.send('POST', '/tracked-urls', body, { 'X-Request-Token': 't1' });
      expect(again.text).toBe(first.text);
      const noHeader = await api2.send('POST', '/tracked-urls', body, { 'Idempotency-Key': 't1' });
      expect(noHeader.body.rejected[0].code).toBe('conflict');
    } finally {
      await custom.close();
    }
  });
});
