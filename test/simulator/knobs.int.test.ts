import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { client, TODAY } from './client.js';

let sim: RunningSimulator;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sim = await startSimulator({ today: TODAY, scale: 40 });
  api = client(sim, 1);
});
afterAll(() => sim.close());

const admin = async (path: string, body?: unknown) => {
  const response = await fetch(`${sim.url}/__admin/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: response.status, body: (await response.json()) as any };
};

describe('knobs', () => {
  it('are all off by default and change at run time through the admin endpoint', async () => {
    const knobs = await admin('knobs');
    expect(knobs.body).toMatchObject({
      latencyMs: 0,
      rateLimit: 0,
      faultRate: 0,
      lateShare: 0,
      extraFieldShare: 0,
      unknownEnumShare: 0,
      invalidShare: 0,
    });
    const changed = await admin('knobs', { latencyMs: 150 });
    expect(changed.body.latencyMs).toBe(150);
    const started = Date.now();
    await api.get('/competitors');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await admin('knobs', { latencyMs: 0 });
    expect((await admin('knobs', { faultRate: 2 })).status).toBe(400);
    expect((await admin('knobs', { noSuchKnob: 1 })).status).toBe(400);
  });

  it('rate limits per key with 429 rate_limited and Retry-After, in seconds or as an HTTP date', async () => {
    sim.setKnobs({ rateLimit: 1, retryAfterSeconds: 2 });
    try {
      // 12 at once pass one per one-second window: unless the burst spans 7 seconds, at least 6 are refused.
      const replies = await Promise.all(Array.from({ length: 12 }, () => api.get('/competitors')));
      const limited = replies.filter((r) => r.status === 429);
      expect(limited.length).toBeGreaterThanOrEqual(6);
      expect(limited[0]!.body.error.code).toBe('rate_limited');
      expect(limited[0]!.headers.get('retry-after')).toBe('2');
      sim.setKnobs({ retryAfterFormat: 'http-date' });
      const more = await Promise.all(Array.from({ length: 12 }, () => api.get('/competitors')));
      const header = more.find((r) => r.status === 429)!.headers.get('retry-after')!;
      expect(Number.isNaN(Date.parse(header))).toBe(false);
      expect(header).toMatch(/GMT$/);
    } finally {
      sim.setKnobs({ rateLimit: 0, retryAfterFormat: 'seconds' });
    }
  });

  it('injects 5xx, resets, truncated and stalled bodies', async () => {
    try {
      sim.setKnobs({ faultRate: 1, faultKinds: ['5xx'] });
      const failed = await api.get('/competitors');
      expect([500, 502, 503]).toContain(failed.status);
      expect(typeof failed.body.error.request_id).toBe('string');

      sim.setKnobs({ faultKinds: ['reset'] });
      await expect(fetch(`${api.base}/competitors`, { headers: { 'x-api-key': sim.apiKey } })).rejects.toThrow();

      sim.setKnobs({ faultKinds: ['truncated'] });
      const truncated = await fetch(`${api.base}/conversations`, { headers: { 'x-api-key': sim.apiKey } });
      expect(truncated.status).toBe(200);
      await expect(truncated.text()).rejects.toThrow();

      sim.setKnobs({ faultKinds: ['stall'], stallMs: 300 });
      const started = Date.now();
      const stalled = await fetch(`${api.base}/conversations`, { headers: { 'x-api-key': sim.apiKey } });
      await expect(stalled.text()).rejects.toThrow();
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      const log = sim.requestLog().slice(-4);
      expect(log.map((entry) => entry.fault)).toEqual(['5xx', 'reset', 'truncated', 'stall']);
    } finally {
      sim.setKnobs({ faultRate: 0 });
    }
  });

  it('draws faults from the seed and the request sequence, so runs repeat', async () => {
    const statuses = async () => {
      const fresh = await startSimulator({ today: TODAY, scale: 5, faultRate: 0.4, faultKinds: ['5xx'] });
      try {
        const out: number[] = [];
        for (let i = 0; i < 20; i++) out.push((await client(fresh, 1).get('/competitors')).status);
        return out;
      } finally {
        await fresh.close();
      }
    };
    const first = await statuses();
    expect(first.filter((s) => s !== 200).length).toBeGreaterThan(2);
    expect(first.filter((s) => s === 200).length).toBeGreaterThan(2);
    expect(await statuses()).toEqual(first);
  });

  it('shows late answers of past days as the clock moves, and new days appear', async () => {
    const late = await startSimulator({ today: TODAY, scale: 200, lateShare: 0.5, lateDays: 2 });
    try {
      const api2 = client(late, 1);
      const count = async (day: string) =>
        (await api2.get('/conversations', { start_date: day, end_date: day })).body.info.total_rows as number;
      const generated = late.truth.generatedAnswers(1, '2026-11-19').length;
      const yesterday = await count('2026-11-19');
      const today = await count('2026-11-20');
      expect(yesterday).toBeLessThan(generated);
      expect(yesterday).toBe(late.truth.answers(1, '2026-11-19').length);
      expect(today).toBe(late.truth.answers(1, '2026-11-20').length);
      expect(today).toBeLessThan(late.truth.generatedAnswers(1, '2026-11-20').length);
      expect(await count('2026-11-21')).toBe(0);

      const moved = await fetch(`${late.url}/__admin/clock`, {
        method: 'POST',
        body: JSON.stringify({ advanceDays: 1 }),
      });
      expect(((await moved.json()) as { today: string }).today).toBe('2026-11-21');
      expect(await count('2026-11-19')).toBe(generated);
      expect(await count('2026-11-20')).toBeGreaterThan(today);
      expect(await count('2026-11-21')).toBeGreaterThan(0);
      // Answers that were visible stay visible with the same ids.
      const ids = new Set(late.truth.answers(1, '2026-11-20').map((a) => a.id));
      expect(ids.size).toBeGreaterThan(today);
    } finally {
      await late.close();
    }
  });

  it('drifts records: unknown fields, unlisted enum values, invalid records, the same way on every fetch', async () => {
    try {
      sim.setKnobs({ extraFieldShare: 1 });
      const extra = await api.get('/conversations', { page_size: 10 });
      expect(extra.body.data.every((r: Record<string, unknown>) => 'x_unlisted_field' in r)).toBe(true);
      sim.setKnobs({ extraFieldShare: 0, unknownEnumShare: 1 });
      const enums = await api.get('/conversations', { page_size: 10 });
      expect(enums.body.data.every((r: { model: string }) => r.model === 'engine_preview_unlisted')).toBe(true);
      sim.setKnobs({ unknownEnumShare: 0, invalidShare: 0.3 });
      const first = await api.get('/conversations', { page_size: 100 });
      const invalid = first.body.data.filter(
        (r: { id?: unknown; date?: string }) => typeof r.id !== 'number' || r.date === 'not-a-date',
      );
      expect(invalid.length).toBeGreaterThan(10);
      expect(invalid.length).toBeLessThan(60);
      expect((await api.get('/conversations', { page_size: 100 })).text).toBe(first.text);
    } finally {
      sim.setKnobs({ extraFieldShare: 0, unknownEnumShare: 0, invalidShare: 0 });
    }
  });

  it('logs every API request (not the admin ones) for tests to count', async () => {
    sim.clearRequestLog();
    await api.get('/templates', { page: 2 });
    await api.get('/no-route');
    await admin('knobs');
    const log = sim.requestLog();
    expect(log.map((e) => [e.method, e.path, e.status])).toEqual([
      ['GET', '/customer/v1/brands/1/templates', 200],
      ['GET', '/customer/v1/brands/1/no-route', 404],
    ]);
    expect(log[0]!.query).toEqual({ page: '2' });
    const fromAdmin = await admin('requests');
    expect(fromAdmin.body.data).toHaveLength(2);
  });
});
