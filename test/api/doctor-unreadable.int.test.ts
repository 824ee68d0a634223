import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runDoctor } from '../support/doctor.js';
import { tempDir } from '../support/tmp.js';

/**
 * An API whose every record fails validation (ids of another size or form, another timestamp form) answers pages that
 * read as empty. Judged from them, doctor called right names wrong ("sort=oldest still starts with the answers of
 * nothing") and sent the user to un-map them; what those records seemed to show cannot be checked.
 */

let sim: RunningSimulator;
const dir = tempDir('doctor-unreadable');

beforeAll(async () => {
  sim = await startSimulator({ seed: 3, brands: 1, days: 12, scale: 30 });
  sim.setKnobs({ invalidShare: 1 });
});
afterAll(async () => {
  await sim?.close();
  dir.remove();
});

describe('doctor against an API none of whose records bvsync can read', () => {
  it('calls no name wrong from what the records seemed to show, and says why they cannot be checked', async () => {
    const { code, out } = await runDoctor(sim, dir.path, 'unreadable', {});
    const rows = out.split('\n').filter((line) => line.startsWith('│ conversations (13)'));
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.filter((line) => /│ wrong +│/.test(line))).toEqual([]);
    expect(rows.find((line) => /│ sort +│/.test(line))).toMatch(
      /│ cannot be checked │ every record of this endpoint's answers \(\d+\) failed validation/,
    );
    // The names the echo or a refusal judged keep their verdicts: they do not rest on records.
    expect(out.split('\n').find((line) => /^│ reports\/visibility\/topics \(16\) +│ start_date /.test(line))).toMatch(
      /│ verified +│ info\.query echoes/,
    );
    expect(out).toMatch(
      /^FAIL {2}conversations \(13\): \d+ of \d+ records in doctor's answers failed validation .*cannot be checked until some can be read/m,
    );
    expect(code).toBe(1);
  }, 120_000);
});
