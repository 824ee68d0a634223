import { describe, expect, it } from 'vitest';
import { eachDay } from '../../src/days.js';
import type { DayWindow } from '../../src/verify/figure.js';
import { daysAsWindows, halves, narrowDays } from '../../src/verify/narrow-days.js';

/** A window disagrees when it holds one of the bad days; counts the measurements made. */
function oracle(bad: string[]) {
  const asked: DayWindow[] = [];
  return {
    asked,
    disagrees: async (window: DayWindow) => {
      asked.push(window);
      return bad.some((day) => day >= window.from && day <= window.to);
    },
  };
}

const WINDOW = { from: '2026-11-01', to: '2026-11-30' };

describe('narrowDays', () => {
  it('names one bad day of 30 in 2·log2(30) measurements at most', async () => {
    const o = oracle(['2026-11-17']);
    const result = await narrowDays(WINDOW, { disagrees: o.disagrees, canSpend: () => true });
    expect(result).toEqual({ days: ['2026-11-17'], unresolved: [], undivided: [] });
    expect(o.asked.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(30)));
  });

  it('names several bad days, the first and last of the window among them', async () => {
    const bad = ['2026-11-01', '2026-11-02', '2026-11-19', '2026-11-30'];
    const result = await narrowDays(WINDOW, { ...oracle(bad), canSpend: () => true });
    expect(result).toEqual({ days: bad, unresolved: [], undivided: [] });
  });

  it('leaves the windows it could not split when the budget is spent, joined where adjacent', async () => {
    let left = 4;
    const o = oracle(['2026-11-03', '2026-11-28']);
    const result = await narrowDays(WINDOW, { disagrees: o.disagrees, canSpend: () => left-- > 0 });
    // 01..15 and 16..30 disagree; of 01..15's halves only 01..07 does; then nothing more can be measured.
    expect(o.asked).toHaveLength(4);
    expect(result.days).toEqual([]);
    expect(result.unresolved).toEqual([
      { from: '2026-11-01', to: '2026-11-07' },
      { from: '2026-11-16', to: '2026-11-30' },
    ]);
  });

  it('reports a window as undivided, not unresolved, when it disagrees but neither half does (the API changed meanwhile)', async () => {
    const result = await narrowDays(
      { from: '2026-11-01', to: '2026-11-04' },
      { disagrees: async () => false, canSpend: () => true },
    );
    expect(result).toEqual({ days: [], unresolved: [], undivided: [{ from: '2026-11-01', to: '2026-11-04' }] });
  });
});

describe('windows', () => {
  it('halves cover the window exactly, the first half the shorter for odd lengths', () => {
    for (const to of ['2026-11-02', '2026-11-03', '2026-11-07', '2026-11-30']) {
      const [first, second] = halves({ from: '2026-11-01', to });
      expect([...eachDay(first.from, first.to), ...eachDay(second.from, second.to)]).toEqual(eachDay('2026-11-01', to));
      expect(eachDay(first.from, first.to).length).toBeLessThanOrEqual(eachDay(second.from, second.to).length);
    }
  });

  it('joins consecutive days into ranges', () => {
    expect(daysAsWindows(['2026-11-05', '2026-11-01', '2026-11-02', '2026-11-03'])).toEqual([
      { from: '2026-11-01', to: '2026-11-03' },
      { from: '2026-11-05', to: '2026-11-05' },
    ]);
  });
});
