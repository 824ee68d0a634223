import { describe, expect, it } from 'vitest';
import { AnswerStore } from '../../src/simulator/world/answers.js';
import { parseSimDay } from '../../src/simulator/sim-days.js';
import { generateWorld } from '../../src/simulator/world/world.js';

const today = parseSimDay('2026-11-20')!;
const firstDay = today - 29;

function store(seed: number, scale: number, maxCachedAnswers?: number) {
  const worlds = new Map<number, ReturnType<typeof generateWorld>>();
  return new AnswerStore({
    seed,
    scale,
    firstDay,
    world: (brandId) => {
      if (!worlds.has(brandId)) worlds.set(brandId, generateWorld({ seed, brandId, firstDay, hasTemplates: true }));
      return worlds.get(brandId)!;
    },
    today: () => today,
    late: () => ({ share: 0, days: 3 }),
    ...(maxCachedAnswers !== undefined ? { maxCachedAnswers } : {}),
  });
}

describe('answer store', () => {
  it('generates a day the same way whatever was generated before, with counts known in advance', () => {
    const a = store(5, 80);
    const b = store(5, 80);
    b.generatedDay(1, today - 3);
    b.generatedDay(2, today);
    const dayA = a.generatedDay(1, today);
    const dayB = b.generatedDay(1, today);
    expect(JSON.stringify(dayA)).toBe(JSON.stringify(dayB));
    expect(dayA.length).toBe(a.dayCount(1, today));
    expect(dayA.length).toBeGreaterThanOrEqual(68);
    expect(dayA.length).toBeLessThanOrEqual(92);
  });

  it('gives ids unique across brands and days, times inside the day in order', () => {
    const s = store(1, 100);
    const ids = new Set<number>();
    for (const brand of [1, 2]) {
      for (const day of [today - 1, today]) {
        const answers = s.generatedDay(brand, day);
        for (let i = 0; i < answers.length; i++) {
          const answer = answers[i]!;
          ids.add(answer.id);
          expect(Math.floor(answer.time / 86_400_000)).toBe(day);
          if (i > 0) expect(answer.time).toBeGreaterThan(answers[i - 1]!.time);
        }
      }
    }
    expect(ids.size).toBe(
      [1, 2].reduce((sum, brand) => sum + s.dayCount(brand, today - 1) + s.dayCount(brand, today), 0),
    );
  });

  it('names the brand exactly when it says mentioned, and cites tracked pages', () => {
    const s = store(2, 300);
    const answers = s.generatedDay(1, today);
    for (const answer of answers) {
      expect(answer.brands.some((m) => m.who === -1)).toBe(answer.mentioned);
      expect(answer.position !== undefined).toBe(answer.mentioned);
      if (answer.recommended) expect(answer.mentioned).toBe(true);
      expect(answer.hasShopping).toBe(answer.products.length > 0);
    }
    const world = generateWorld({ seed: 2, brandId: 1, firstDay, hasTemplates: true });
    const tracked = new Set(world.trackedUrls.map((p) => p.url));
    expect(answers.some((a) => a.citations.some((c) => tracked.has(c.page.url)))).toBe(true);
  });

  it('keeps the cache within its bound of answers', () => {
    const s = store(3, 1000, 5_000);
    for (let day = firstDay; day <= today; day++) s.generatedDay(1, day);
    expect(s.cacheStats().answers).toBeLessThanOrEqual(5_000);
    expect(s.cacheStats().days).toBeGreaterThan(0);
  });

  it('generates a day of 10,000 answers in well under a second of CPU', () => {
    const s = store(4, 10_000);
    // CPU time of this process, not wall time: other processes on a loaded machine do not count against it.
    const started = process.cpuUsage();
    const answers = s.generatedDay(1, today);
    const used = process.cpuUsage(started);
    expect(answers.length).toBeGreaterThan(8_000);
    expect((used.user + used.system) / 1000).toBeLessThan(1_000);
  });
});
