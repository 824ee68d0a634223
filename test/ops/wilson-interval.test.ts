import { describe, expect, it } from 'vitest';
import { wilsonInterval } from '../../src/ops/wilson-interval.js';

describe('wilsonInterval', () => {
  it('matches the textbook values and stays inside [0, 1]', () => {
    const ten = wilsonInterval(10, 100)!;
    expect(ten.low).toBeCloseTo(0.0552, 4);
    expect(ten.high).toBeCloseTo(0.1744, 4);
    expect(wilsonInterval(0, 5)!.low).toBe(0);
    expect(wilsonInterval(5, 5)!.high).toBe(1);
    expect(wilsonInterval(0, 0)).toBeNull();
  });
});
