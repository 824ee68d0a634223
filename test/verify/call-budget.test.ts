import { describe, expect, it } from 'vitest';
import { CallBudget } from '../../src/verify/call-budget.js';

describe('the call budget', () => {
  it('bounds only the narrowing by default: the whole-window requests before it are free', () => {
    const budget = new CallBudget(3);
    for (let i = 0; i < 5; i++) budget.count();
    budget.startNarrowing();
    expect(budget.canSpend(3)).toBe(true);
    expect(budget.canSpend(4)).toBe(false);
  });

  it('bounds every request when asked to (sync.heal.maxCalls)', () => {
    const budget = new CallBudget(6, true);
    for (let i = 0; i < 5; i++) budget.count();
    budget.startNarrowing();
    expect(budget.canSpend(1)).toBe(true);
    expect(budget.canSpend(2)).toBe(false);
  });
});
