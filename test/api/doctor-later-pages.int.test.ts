import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runDoctor } from '../support/doctor.js';
import { tempDir } from '../support/tmp.js';

/**
 * A page 2 the API answers with what bvsync cannot read (a proxy's HTML page, JSON cut short, `data: null`) fails every
 * slice of more than one page. Doctor called the paging row "cannot be checked" and ended "all checks passed".
 */

let sim: RunningSimulator;
const dir = tempDir('doctor-later-pages');

beforeAll(async () => {
  sim = await startSimulator({ seed: 3, brands: 1, days: 12, scale: 30 });
});
afterAll(async () => {
  await sim?.close();
  dir.remove();
});

describe('doctor against an API whose pages after the first bvsync cannot read', () => {
  for (const [kind, came] of [
    ['html', /HTTP 200 with a body that is not JSON.*html/i],
    ['cut_json', /HTTP 200 with a body that is not JSON/],
    ['null_data', /envelope does not match the spec.*data/],
  ] as const) {
    it(`fails, naming the page and what came back (${kind})`, async () => {
      sim.setKnobs({ laterPages: kind });
      // Fewer attempts than the default five: each page is asked again as a sync would, at the same answer.
      const { code, out } = await runDoctor(sim, dir.path, kind, { maxAttempts: 2, retryMaxMs: 200 });
      const line = out.split('\n').find((l) => l.startsWith('FAIL  conversations (13): the API answered page 2'));
      expect(line, out).toMatch(
        /^FAIL {2}conversations \(13\): the API answered page 2 \(at 1 record a page\): GET \S+\/conversations: /,
      );
      expect(line).toMatch(came);
      expect(line).toMatch(/every slice of conversations with more than one page would fail/);
      expect(out).not.toMatch(/all checks passed/);
      expect(code).toBe(1);
    }, 120_000);
  }
});
