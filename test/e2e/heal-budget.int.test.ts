import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNLIMITED_RATE_BUDGET, createApiClient } from '../../src/api/index.js';
import { CallBudget } from '../../src/verify/call-budget.js';
import { verifyWarehouse, type VerifyReport } from '../../src/verify/verify-warehouse.js';
import { openReadOnly } from '../../src/warehouse/publish/published-database.js';
import { engineFixture, runInProcess, type EngineFixture } from '../support/engine.js';

/**
 * `sync.heal.maxCalls` bounds every request of a comparison, the whole-window one and retries included: the budget
 * refuses an attempt past it before it is sent, and what it leaves out is reported unresolved (src/engine/schedule/heal.ts).
 * Counted on the simulator's own request log.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-14';
const TO = '2026-11-19';
const DELETED_DAY = '2026-11-18';
const STREAMS = ['visibility', 'competitors', 'tracked_urls', 'conversations', 'citations', 'product_ranking'];

let fx: EngineFixture;
let brandId: number;

/** Compares the file with the API as a heal round does: a bounding budget of `limit` requests, newest days first. */
async function compare(db: string, limit: number): Promise<{ report: VerifyReport; sent: number }> {
  fx.sim.clearRequestLog();
  const budget = new CallBudget(limit, true);
  const client = createApiClient(fx.config.api, {
    budget: budget.bounding(UNLIMITED_RATE_BUDGET),
    retryRateLimited: true,
    onRequest: () => budget.count(),
  });
  const file = await openReadOnly(db);
  try {
    const report = await verifyWarehouse({
      client,
      connection: file.connection,
      brands: [brandId],
      window: { from: FROM, to: TO },
      budget,
      newestFirst: true,
    });
    const sent = fx.sim.requestLog().filter((entry) => entry.path.startsWith('/customer/v1/')).length;
    return { report, sent };
  } finally {
    file.close();
    await client.close();
  }
}

/** A copy of the file without the conversations of one day, so that family disagrees on that day only. */
async function copyWithoutDay(day: string): Promise<string> {
  const copy = join(fx.dir, `without-${day}.duckdb`);
  copyFileSync(fx.config.db, copy);
  const instance = await DuckDBInstance.create(copy);
  const connection = await instance.connect();
  try {
    await connection.run('DELETE FROM conversations WHERE brand_id = $1 AND "day" = $2::DATE', [brandId, day]);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return copy;
}

beforeAll(async () => {
  fx = await engineFixture('heal-budget', { sim: { brands: 1 }, config: { sync: { fetchConcurrency: 8 } } });
  [brandId] = fx.config.brands as [number];
  const progress = await runInProcess(fx, { kind: 'backfill', today: TODAY, from: FROM, to: TODAY, streams: STREAMS });
  expect(progress.meta.status).toBe('complete');
}, 180_000);
afterAll(async () => fx?.cleanup());

describe('a comparison bounded by sync.heal.maxCalls', () => {
  it('sends no more than the limit when the whole window alone needs more, and reports the families left out', async () => {
    // Five families compare one brand in five requests (test/e2e/verify.int.test.ts); three are allowed.
    const { report, sent } = await compare(fx.config.db, 3);
    expect(sent).toBe(3);
    expect(report.calls.total).toBe(3);
    expect(report.agree).toBe(false);
    const [brand] = report.brands;
    const left = brand!.byFamily.filter((family) =>
      family.unresolved.some((window) => window.from === FROM && window.to === TO),
    );
    expect(left.map((family) => family.family)).toEqual(['citations', 'product_ranking']);
    expect(brand!.unresolved).toEqual([{ from: FROM, to: TO }]);
  });

  it('narrows within what is left, newest half first, and leaves the rest unresolved', async () => {
    const copy = await copyWithoutDay(DELETED_DAY);
    const full = await compare(copy, 1_000);
    expect(full.report.brands[0]!.daysToBackfill).toEqual([DELETED_DAY]);
    // The whole window (5) and the first split's two halves: the newer half, which holds the day, is measured first.
    const { report, sent } = await compare(copy, 7);
    expect(sent).toBeLessThanOrEqual(7);
    expect(report.calls.total).toBe(sent);
    const conversations = report.brands[0]!.byFamily.find((family) => family.family === 'conversations')!;
    expect(conversations.days).toEqual([]);
    expect(conversations.unresolved.length).toBeGreaterThan(0);
    expect(conversations.unresolved.some((window) => window.from <= DELETED_DAY && window.to >= DELETED_DAY)).toBe(
      true,
    );
  });

  it('counts retries of failed requests against the limit too', async () => {
    fx.sim.setKnobs({ faultRate: 0.5, faultKinds: ['5xx'] });
    try {
      const { report, sent } = await compare(fx.config.db, 4);
      expect(sent).toBeLessThanOrEqual(4);
      expect(report.calls.total).toBe(sent);
    } finally {
      fx.sim.setKnobs({ faultRate: 0 });
    }
  });
});
