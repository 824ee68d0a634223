import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TROUBLES, apiOutageScenario, apiTroubleScenario, cleanReference, type Reference } from './scenarios.js';

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

describe('an API away for a while (a deployment, a gateway restart)', () => {
  // Before, each slice in flight spent its four attempts within ~15 s and the run ended incomplete.
  it.each([
    { mode: '503' as const, fetchThreads: 0 },
    { mode: 'reset' as const, fetchThreads: 1 },
  ])(
    '$mode for 15 s (fetchThreads $fetchThreads): the slices wait it out and the tables are those of a clean run',
    async ({ mode, fetchThreads }) => {
      // Longer than a slice's four attempts take to be spent (BullMQ's backoff: at most 2 + 4 + 8 s).
      const outcome = await apiOutageScenario(reference, { mode, outageMs: 15_000, fetchThreads });
      expect(outcome.status, outcome.disturbed.join('; ')).toBe('complete');
      expect(outcome.failedSlices).toBe(0);
      expect(outcome.differences).toEqual([]);
      expect(outcome.stateDifferences).toBe(0);
      expect(outcome.seconds).toBeGreaterThan(15);
      // The queue pauses while the API is away (5 s, then as long as it has lasted): not every slice asks in a loop.
      expect(outcome.unanswered).toBeGreaterThan(0);
      expect(outcome.unanswered).toBeLessThan(100);
    },
    150_000,
  );

  it('away for longer than sync.outageToleranceMinutes: its slices fail and the run ends', async () => {
    const outcome = await apiOutageScenario(reference, { mode: '503', outageMs: undefined, toleranceMinutes: 0.1 });
    expect(outcome.status).toBe('incomplete');
    expect(outcome.failedSlices).toBeGreaterThan(0);
    // Once the run gave up, its other slices failed without asking: a request or two each at most, not four attempts of two.
    expect(outcome.failureCodes).toEqual(['api_unavailable']);
    expect(outcome.unanswered).toBeLessThan(outcome.failedSlices * 2);
    expect(outcome.answeredAfter).toBeLessThanOrEqual(8);
    // The run ended at the give-up: no failed slice went on to spend its four job attempts (FETCH_JOB_OPTIONS).
    expect(outcome.mostFailedSliceAttempts).toBeGreaterThan(0);
    expect(outcome.mostFailedSliceAttempts).toBeLessThan(4);
  }, 150_000);

  it('holding every request unanswered for longer than the tolerance: each call stops retrying at it and the run ends', async () => {
    // A 3 s tolerance and five attempts of a 2 s headers timeout. Before, each call spent all five: the run heard the
    // API was away only after 10 s (13.3 s measured, 40 requests held: five for each of the 8 slices in flight).
    const outcome = await apiOutageScenario(reference, {
      mode: 'hang',
      outageMs: undefined,
      toleranceMinutes: 0.05,
      api: { maxAttempts: 5, headersTimeoutMs: 2_000 },
    });
    expect(outcome.status).toBe('incomplete');
    expect(outcome.failureCodes).toEqual(['api_unavailable']);
    // A first attempt ends at the 2 s timeout, inside the tolerance; the second ends past it, whatever the load.
    expect(outcome.mostAttemptsOfOneCall).toBeGreaterThan(0);
    expect(outcome.mostAttemptsOfOneCall).toBeLessThanOrEqual(2);
    // Two attempts for each of the 8 slices in flight, and one request more: the first slice to meet the API away fails
    // alone (one slice is no outage, availability.ts's awayVerdict), and a ninth takes its place till a second gives up.
    expect(outcome.unanswered).toBeLessThanOrEqual(2 * 8 + 1);
  }, 150_000);
});
