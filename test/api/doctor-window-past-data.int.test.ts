import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor, type ParamVerdict } from '../../src/cli/doctor/doctor.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { TEST_REDIS_URL } from '../support/redis.js';

/**
 * doctor's week ends yesterday by the machine's clock; an API (or the tour's simulator, its clock held on a day)
 * whose last day of data is earlier leaves the week one day of answers. More than a page of them, all of one day,
 * look to the sort probe like an ignored sort=oldest: found in CI when the real date passed the tour's day by a week.
 */
let sim: RunningSimulator;
/** One that knows the sort by another name, and ignores bvsync's. */
let sortIgnored: RunningSimulator;
/** One with a single day of answers, its today. */
let oneDay: RunningSimulator;

beforeAll(async () => {
  const data = { seed: 5, brands: 1, days: 10, scale: 400, today: '2026-11-20' };
  [sim, sortIgnored, oneDay] = await Promise.all([
    startSimulator(data),
    startSimulator({ ...data, params: { sort: 'order_by' }, strictParams: false }),
    startSimulator({ ...data, days: 1 }),
  ]);
});
afterAll(() => Promise.all([sim.close(), sortIgnored.close(), oneDay.close()]));

async function sortVerdict(today: string, api = sim): Promise<ParamVerdict | undefined> {
  const { params } = await runDoctor({
    env: {
      BVSYNC_API_URL: api.url,
      BVSYNC_API_KEY: api.apiKey,
      BVSYNC_BRANDS: '1',
      REDIS_URL: TEST_REDIS_URL,
      BVSYNC_LOG_LEVEL: 'silent',
    },
    today,
    report: () => {},
    reportParams: () => {},
    progress: () => ({ sent: () => {}, rateLimited: () => {}, end: () => {} }),
  });
  return params.find((row) => row.endpoint.startsWith('conversations') && row.param === 'sort');
}

describe("doctor's sort probe on a week with one day of answers", () => {
  it('does not call sort wrong when every answer of the week is of its first day, however many pages they fill', async () => {
    const row = await sortVerdict('2026-11-27');
    expect(row?.verdict, row?.why).not.toBe('wrong');
  });

  it('asks whether the week holds answers before that day when it begins earlier, and finds none', async () => {
    const row = await sortVerdict('2026-11-21', oneDay);
    expect(row?.verdict, row?.why).not.toBe('wrong');
  });

  it('calls an ignored sort wrong when the first page is of one day and the week has answers before it', async () => {
    const row = await sortVerdict('2026-11-21', sortIgnored);
    expect(row?.verdict).toBe('wrong');
    expect(row?.why).toMatch(/though the window has answers of 2026-11-1\d/);
  });
});
