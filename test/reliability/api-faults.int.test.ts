import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TROUBLES, apiTroubleScenario, cleanReference, type Reference } from './scenarios.js';

/**
 * Backfills through an unreliable API (simulator knobs): 20 % of requests failing in every way the simulator knows,
 * a 429 storm with a long Retry-After, answers that come just before the timeout. Each run's tables equal a clean
 * run's, and its summary counts the retries and 429s it went through.
 */

let reference: Reference;
beforeAll(async () => {
  reference = await cleanReference();
});
afterAll(async () => reference?.fx.cleanup());

const [faults, storm, slow] = API_TROUBLES;

describe('an unreliable API', () => {
  it('20% faults (5xx, resets, truncated and stalled bodies): same tables, every fault retried and counted', async () => {
    const outcome = await apiTroubleScenario(reference, faults!);
    expect(outcome.faults).toBeGreaterThan(5);
    expect(outcome.faultKinds).toEqual(['5xx', 'reset', 'stall', 'truncated']);
    expect(outcome.status).toBe('complete');
    expect(outcome.differences).toEqual([]);
    expect(outcome.stateDifferences).toBe(0);
    expect(outcome.retries).toBeGreaterThanOrEqual(outcome.faults);
  }, 120_000);

  it('a 429 storm with Retry-After 2 s: same tables, the 429s counted', async () => {
    const outcome = await apiTroubleScenario(reference, storm!);
    expect(outcome.status429).toBeGreaterThan(0);
    expect(outcome.status).toBe('complete');
    expect(outcome.differences).toEqual([]);
    expect(outcome.stateDifferences).toBe(0);
    expect(outcome.rateLimited).toBe(outcome.status429);
  }, 150_000);

  it('answers just inside the headers timeout: same tables', async () => {
    expect(slow!.knobs.latencyMs! / slow!.api!.headersTimeoutMs!).toBeGreaterThan(0.6);
    const outcome = await apiTroubleScenario(reference, slow!);
    expect(outcome.status).toBe('complete');
    expect(outcome.differences).toEqual([]);
    expect(outcome.stateDifferences).toBe(0);
  }, 120_000);
});
