import { describe, expect, it } from 'vitest';
import { isVisible, visibleCount } from '../../src/simulator/faults/late-answers.js';

describe('late answers', () => {
  it('counts visible answers arithmetically, exactly as checking each answer would', () => {
    for (const count of [1, 7, 100, 997, 10_000]) {
      for (const late of [
        { share: 0.3, days: 3 },
        { share: 1, days: 5 },
        { share: 0.05, days: 1 },
      ]) {
        for (let age = -1; age <= late.days + 1; age++) {
          let visible = 0;
          for (let i = 0; i < count; i++) if (isVisible(i, count, 12345 % count, age, late)) visible++;
          expect(visibleCount(count, age, late)).toBe(visible);
        }
      }
    }
  });

  it('never hides an answer again once it showed, and shows all after lateDays', () => {
    const late = { share: 0.5, days: 3 };
    for (let i = 0; i < 500; i++) {
      let seen = false;
      for (let age = 0; age <= 4; age++) {
        const visible = isVisible(i, 500, 77, age, late);
        if (seen) expect(visible).toBe(true);
        seen ||= visible;
      }
      expect(seen).toBe(true);
    }
    expect(visibleCount(500, 0, late)).toBe(250);
    expect(visibleCount(500, 3, late)).toBe(500);
  });

  it('hides nothing when the knob is off', () => {
    expect(visibleCount(100, 0, { share: 0, days: 3 })).toBe(100);
    expect(isVisible(5, 100, 0, 0, { share: 0, days: 3 })).toBe(true);
  });
});
