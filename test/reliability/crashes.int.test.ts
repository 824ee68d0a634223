import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanReference, crashScenario, type Reference } from './scenarios.js';

/**
 * kill -9 of the worker process at the worst moments of a backfill — while it pages, inside a slice's load
 * transaction, while it publishes — and a new worker started each time: the run completes and the warehouse holds
 * exactly what an undisturbed run of the same window on the same simulator seed holds. `npm run chaos` repeats this
 * with random moments.
 */

let reference: Reference;
beforeAll(async () => {
  reference = await cleanReference();
});
afterAll(async () => reference?.fx.cleanup());

describe('a worker SIGKILLed again and again during a backfill', () => {
  it('ends with the tables and slice states of a clean run, and the published file opens after every kill', async () => {
    const outcome = await crashScenario(reference, {
      // Both kills in a transaction come early, while slices are surely left to load: a paging kill may land late.
      moments: [
        { kind: 'paging', at: 0.15 },
        { kind: 'transaction', commit: 3 },
        { kind: 'transaction', commit: 1 },
        { kind: 'paging', at: 0.6 },
        { kind: 'publish' },
      ],
    });
    // Every kill landed where it was meant to (a kill that found the run over would prove nothing).
    expect(outcome.disturbed.filter((line) => line.includes('missed') || line.includes('already over'))).toEqual([]);
    expect(outcome.disturbed.filter((line) => line.startsWith('in-txn'))).toHaveLength(2);
    expect(outcome.disturbed.at(-1)).toMatch(/publish \(finalizing\)/);
    expect(outcome.problems).toEqual([]);
    expect(outcome.status).toBe('complete');
    expect(outcome.differences).toEqual([]);
    expect(outcome.stateDifferences).toBe(0);
  }, 240_000);
});
