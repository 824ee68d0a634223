import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runDoctor } from '../support/doctor.js';
import { tempDir } from '../support/tmp.js';

/**
 * Doctor's one-day range check tells a range the API ignores from days of another zone, and a name the API reads from
 * a zone that shifts its days: before, an ignored range was blamed on a time zone (or passed), and a zone made a right
 * end_date "wrong".
 */

let ignoring: RunningSimulator;
let shifted: RunningSimulator;
const dir = tempDir('doctor-ranges');

beforeAll(async () => {
  const data = { seed: 3, brands: 1, days: 12, scale: 30 };
  [ignoring, shifted] = await Promise.all([
    // Reads its range as since/until and ignores start_date/end_date: every request gets its default 30 days.
    startSimulator({ ...data, params: { start_date: 'since', end_date: 'until' }, strictParams: false }),
    startSimulator(data),
  ]);
  shifted.setKnobs({ dayZoneHours: -5 });
});
afterAll(async () => {
  await Promise.all([ignoring?.close(), shifted?.close()]);
  dir.remove();
});

const row = (out: string, endpoint: string, param: string) =>
  out.split('\n').find((line) => line.startsWith(`│ ${endpoint} `) && line.includes(`│ ${param} `));

describe("doctor's one-day range", () => {
  it("against an API that ignores the range names: says the range was not applied, not that its days are a zone's", async () => {
    const { code, out } = await runDoctor(ignoring, dir.path, 'ignored', {});
    expect(out).toMatch(
      /^FAIL {2}ranges: a range of one day \((\d{4}-\d{2}-\d{2})\.\.\1\) answers \d+ answers where the week's had \d+.*: the API did not apply the range \(start_date and end_date in the table: names it ignores\)/m,
    );
    expect(out).not.toMatch(/another time zone's/);
    expect(out).not.toMatch(/^ok {4}ranges:/m);
    expect(code).toBe(1);
  }, 120_000);

  it("against an API whose days are a zone's east of UTC, with more answers a day than a page: finds them on the day's last page", async () => {
    // +02:00: asked for UTC day D, the API answers D-1 22:00Z .. D 21:59Z. Newest first, the answers of the day before
    // are the oldest, past the first page of 100: doctor had read only that page and passed.
    const sim = await startSimulator({ seed: 3, brands: 1, days: 12, scale: 150 });
    try {
      sim.setKnobs({ dayZoneHours: 2 });
      const { code, out } = await runDoctor(sim, dir.path, 'east', {});
      expect(out).toMatch(
        /^FAIL {2}ranges: a range of one day \((\d{4}-\d{2}-\d{2})\.\.\1\) answers \d+ of \d+ answers dated outside that UTC day \(\S+T2[23]:.*, on its first and last pages\): the API's days are another time zone's/m,
      );
      expect(out).not.toMatch(/^ok {4}ranges:/m);
      expect(code).toBe(1);
    } finally {
      await sim.close();
    }
  }, 120_000);

  it("against an API whose days are another zone's: blames the zone, and keeps end_date verified", async () => {
    const { out } = await runDoctor(shifted, dir.path, 'shifted', {});
    expect(out).toMatch(/^FAIL {2}ranges: a range of one day .*the API's days are another time zone's/m);
    expect(row(out, 'conversations (13)', 'end_date')).toMatch(
      /│ verified +│ .*the API reads the name, and its days are not UTC days/,
    );
  }, 120_000);
});

describe('doctor against an API whose answers carry no total_rows', () => {
  it('calls no range name wrong from a first page that a moved start cannot change', async () => {
    // Enough answers a day that the window's last two days fill a first page of 100 too, on a fixed calendar.
    const sim = await startSimulator({ seed: 3, brands: 1, days: 12, scale: 90, today: '2026-11-20' });
    try {
      sim.setKnobs({ oddities: ['no_total'] });
      const { out } = await runDoctor(sim, dir.path, 'no-total', {}, '2026-11-20');
      // Newest first, the first page of the week and of its last days are the same 100 answers: start_date had been
      // "wrong ... though it holds records of" the days moved over, and the advice broke a working config.
      for (const param of ['start_date', 'end_date'])
        expect(row(out, 'conversations (13)', param)).not.toMatch(/│ wrong +│/);
      expect(out).not.toMatch(/wrong: start_date/);
      // Nor is a full first page of one day, as long as the week's, taken for a range not applied.
      expect(out).toMatch(/^ok {4}ranges: a range of one day /m);
    } finally {
      await sim.close();
    }
  }, 120_000);
});
