import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runDoctor } from '../support/doctor.js';
import { tempDir } from '../support/tmp.js';

/** A key whose quota is spent gets 429 for every request: doctor says so, and when it comes back, at once. */

let sim: RunningSimulator;
const dir = tempDir('doctor-rate-limited');

beforeAll(async () => {
  sim = await startSimulator({ seed: 3, brands: 1, days: 3 });
  sim.setKnobs({ quotaSpent: true });
});
afterAll(async () => {
  await sim?.close();
  dir.remove();
});

describe('doctor with a key whose quota is spent', () => {
  it('says so of the brand, with when the quota comes back, and what to do', async () => {
    const { code, out } = await runDoctor(sim, dir.path, 'rate-limited', {});
    expect(out).toMatch(
      /^FAIL {2}brand 1: the key's request quota is spent, back in 1d 00h 00m \(.*HTTP 429 monthly_quota_exceeded.*\); run doctor again once it is back$/m,
    );
    expect(code).toBe(1);
  }, 120_000);
});
