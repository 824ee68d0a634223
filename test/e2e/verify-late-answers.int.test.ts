import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, eachDay } from '../../src/days.js';
import type { VerifyReport } from '../../src/verify/verify-warehouse.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runBvsync,
  runInProcess,
  writeCliConfig,
  type EngineFixture,
} from '../support/engine.js';

/**
 * Answers that arrive after the lookback: a schedule of syncs with a one-day lookback misses the late answers of the
 * days before, and the warehouse stays short of the API for those days. `bvsync verify` names exactly them, and
 * agrees once they are backfilled again.
 */

const FIRST_TODAY = '2026-11-20';
const LATE_DAYS = 3;
const STREAMS = ['visibility', 'competitors', 'tracked_urls', 'conversations', 'citations', 'product_ranking'];
const FROM = addDays(FIRST_TODAY, -5);

let fx: EngineFixture;
let to: string;

async function verify(): Promise<{ code: number | null; report: VerifyReport; stderr: string }> {
  const result = await runBvsync(
    ['verify', '--config', writeCliConfig(fx), '--from', FROM, '--to', to, '--json'],
    cliEnv(fx),
  );
  return { code: result.code, report: JSON.parse(result.stdout || '{}') as VerifyReport, stderr: result.stderr };
}

beforeAll(async () => {
  fx = await engineFixture('verify-late', {
    sim: { brands: 1, lateShare: 0.3, lateDays: LATE_DAYS },
    config: { sync: { initialDays: 6, lookbackDays: 1, fetchConcurrency: 8 } },
  });
  expect((await runInProcess(fx, { kind: 'sync', today: FIRST_TODAY, streams: STREAMS })).meta.status).toBe('complete');
  fx.sim.advanceClock(LATE_DAYS);
  expect((await runInProcess(fx, { kind: 'sync', today: fx.sim.truth.today(), streams: STREAMS })).meta.status).toBe(
    'complete',
  );
  to = addDays(fx.sim.truth.today(), -1);
}, 240_000);
afterAll(async () => fx?.cleanup());

describe('bvsync verify after late answers', () => {
  it('names the days whose late answers arrived after the lookback had passed them', async () => {
    const [brandId] = fx.config.brands as [number];
    const stored = await queryFile(
      fx.config.db,
      'SELECT "day"::VARCHAR AS day, count(*)::INTEGER AS n FROM conversations WHERE brand_id = $1 GROUP BY ALL',
      [brandId],
    );
    const storedOn = new Map(stored.map((row) => [String(row.day), Number(row.n)]));
    const short = eachDay(FROM, to).filter(
      (day) => (storedOn.get(day) ?? 0) !== fx.sim.truth.answers(brandId, day).length,
    );
    // The first sync read the two days before its today at ages 1 and 2, before their late answers; the second
    // sync's lookback of one day did not reach back to them.
    expect(short).toEqual([addDays(FIRST_TODAY, -2), addDays(FIRST_TODAY, -1)]);

    const { code, report } = await verify();
    expect(code).toBe(1);
    expect(report.brands[0]!.daysToBackfill).toEqual(short);
    expect(report.brands[0]!.unresolved).toEqual([]);
  });

  it('agrees once those days are backfilled again', async () => {
    const backfill = await runInProcess(fx, {
      kind: 'backfill',
      today: fx.sim.truth.today(),
      from: addDays(FIRST_TODAY, -2),
      to: addDays(FIRST_TODAY, -1),
      streams: STREAMS,
    });
    expect(backfill.meta.status).toBe('complete');
    const { code, report, stderr } = await verify();
    expect(stderr).toBe('');
    expect(report.agree).toBe(true);
    expect(code).toBe(0);
  });
});
