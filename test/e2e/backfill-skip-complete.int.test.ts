import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, todayUtc } from '../../src/days.js';
import { runToEnd, type RunProgress } from '../../src/engine/run/start-run.js';
import type { Job } from 'bullmq';
import { loadProcessor } from '../../src/engine/writer/load-processor.js';
import { openQueues } from '../../src/engine/jobs/queues.js';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import { redisKeys } from '../../src/redis-keys.js';
import { workingPathFor } from '../../src/warehouse/paths.js';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runBvsync,
  runInProcess,
  runOnFile,
  writeCliConfig,
  type EngineFixture,
} from '../support/engine.js';

/**
 * `bvsync backfill --skip-complete` reads again only what the file does not have complete: slices that failed, came
 * back incomplete, were never read, or were read while their day was still today (answers kept arriving). A year's
 * backfill with three failed days costs the requests of those days, not of the year again. The simulator's today is
 * the real one here, so a day read as today is today's.
 */

const TODAY = todayUtc();
const day = (back: number) => addDays(TODAY, -back);
const FROM = day(6);
const STREAMS = ['conversations', 'tracked_urls', 'competitors'];
const DAILY = ['conversations', 'tracked_urls'];

let fx: EngineFixture;
const query = (sql: string, params?: Array<string | number>) => queryFile(fx.config.db, sql, params);
/** The days the requests since `since` asked for (their start_date or day), and the paths of those that asked for none. */
function daysAsked(since: number): { days: Set<string>; undated: string[] } {
  const asked = fx.sim.requestLog().slice(since);
  const day = (entry: (typeof asked)[number]) => String(entry.query.start_date ?? entry.query.day ?? '');
  return {
    days: new Set(asked.map(day).filter((value) => value !== '')),
    undated: asked.filter((entry) => day(entry) === '').map((entry) => entry.path),
  };
}
let refused: RunProgress;
let statusBefore: { code: number | null; stdout: string; stderr: string };
let statusOtherStreams: { code: number | null; stdout: string; stderr: string };
let odd: { code: number | null; stdout: string; stderr: string };
let skipping: { code: number | null; stdout: string; stderr: string };
let skippingAsked: ReturnType<typeof daysAsked>;
let conversationsBefore: number;

/** Changes the working file between runs, as a run of another day would have left it. */
const tamper = (statements: string[]) => runOnFile(workingPathFor(fx.config.db), ...statements);
const statusDays = async () =>
  (
    await queryFile(workingPathFor(fx.config.db), `SELECT DISTINCT "day"::VARCHAR AS day FROM article_status_daily`)
  ).map((row) => String(row.day));
const asked = (since: number, endpoint: string) =>
  fx.sim
    .requestLog()
    .slice(since)
    .filter((entry) => entry.path.endsWith(endpoint)).length;

beforeAll(async () => {
  fx = await engineFixture('backfill-skip-complete', { sim: { brands: 1, days: 10, scale: 20, today: TODAY } });
  // Days 6..4 back load complete; day 3 back fails (a key the API refuses); day 2 back loads incomplete.
  const good = await runInProcess(fx, { kind: 'backfill', from: FROM, to: day(4), today: TODAY, streams: STREAMS });
  expect(good.meta.status).toBe('complete');
  refused = await runToEnd({
    config: { ...fx.config, api: { ...fx.config.api, apiKey: 'bvk_not_the_right_key' } },
    redisUrl: fx.redisUrl,
    log: fx.log,
    kind: 'backfill',
    from: day(3),
    to: day(3),
    brands: fx.config.brands,
    streams: DAILY,
    today: TODAY,
    worker: { leaseTtlMs: 2_000 },
  });
  fx.sim.setKnobs({ oddities: ['row_outside_window'] });
  odd = await runBvsync(
    ['backfill', '--from', day(2), '--to', day(2), '--streams', 'conversations', '--config', writeCliConfig(fx)],
    cliEnv(fx),
  );
  fx.sim.setKnobs({ oddities: [] });
  statusBefore = await runBvsync(['status', '--config', writeCliConfig(fx)], cliEnv(fx));
  statusOtherStreams = await runBvsync(
    ['status', '--config', writeCliConfig(fx, { sync: { streams: ['visibility'] } })],
    cliEnv(fx),
  );
  conversationsBefore = Number((await query('SELECT count(*)::INTEGER AS n FROM conversations'))[0]!.n);
  const since = fx.sim.requestLog().length;
  skipping = await runBvsync(
    ['backfill', '--from', FROM, '--streams', STREAMS.join(','), '--skip-complete', '--config', writeCliConfig(fx)],
    cliEnv(fx),
  );
  skippingAsked = daysAsked(since);
}, 240_000);
afterAll(async () => fx?.cleanup());

describe('backfill --skip-complete', () => {
  it('sets the scene: a failed day and an incomplete one among complete days', async () => {
    expect(refused.meta.status).toBe('failed');
    expect(odd.stdout).toMatch(/: incomplete;/);
  });

  it('is what bvsync status advises for the days of the slices not complete', async () => {
    expect(statusBefore.code, statusBefore.stderr).toBe(0);
    // The streams named: a backfill without --streams would read every window stream of the config again, in full.
    expect(statusBefore.stdout).toContain(
      // Each stream over its own days: tracked_urls failed on day 3 back alone (its day 2 back was never read).
      `bvsync backfill --streams conversations --from ${day(3)} --to ${day(2)} --skip-complete; bvsync backfill --streams tracked_urls --from ${day(3)} --to ${day(3)} --skip-complete ` +
        'reads again only the slices of those streams and days not complete (those the config still plans)',
    );
    // A config that no longer plans those streams: a backfill would not read them, so nothing is advised.
    expect(statusOtherStreams.stdout).toContain('Slices not complete');
    expect(statusOtherStreams.stdout).not.toContain('--skip-complete');
    const after = await runBvsync(['status', '--json', '--config', writeCliConfig(fx)], cliEnv(fx));
    expect(JSON.parse(after.stdout).slicesNotCompleteDays).toBeNull();
  });

  it('is what a backfill that left slices not complete advises', () => {
    expect(odd.stderr).toContain(
      'the same command with --skip-complete reads again only the slices not complete, not the whole window',
    );
    expect(skipping.stderr).not.toContain('--skip-complete reads again');
  });

  it('reads the failed, the incomplete and the never-read days, and none of the complete ones', () => {
    expect(skipping.code, skipping.stderr).toBe(0);
    expect([...skippingAsked.days].sort()).toEqual([day(3), day(2), day(1), day(0)]);
    // competitors (a full-refresh list) loaded complete: not read again. The one request is the preflight's probe of
    // the brand (src/cli/brand-access-probe.ts), which every command that runs makes.
    expect(skippingAsked.undated.filter((path) => path.endsWith('/competitors'))).toEqual([
      '/customer/v1/brands/1/competitors',
    ]);
  });

  it('says how many slices it skipped', () => {
    // Days 6..4 back of two daily streams, and the competitors list; day 2 back of tracked_urls was never read.
    expect(skipping.stdout).toContain('skipped 7 slices the file has complete (--skip-complete)');
  });

  it('leaves the file complete, with the rows it had and the days it read', async () => {
    const states = await query(
      `SELECT status, count(*)::INTEGER AS n FROM _sync_state GROUP BY status ORDER BY status`,
    );
    expect(states).toEqual([{ status: 'complete', n: 2 * 7 + 1 }]);
    const conversations = Number((await query('SELECT count(*)::INTEGER AS n FROM conversations'))[0]!.n);
    expect(conversations).toBeGreaterThan(conversationsBefore);
  });

  it('reads again, the next time, only the days read while they were today', async () => {
    const since = fx.sim.requestLog().length;
    const again = await runInProcess(fx, {
      kind: 'backfill',
      from: FROM,
      today: TODAY,
      to: TODAY,
      streams: STREAMS,
      skipComplete: true,
    });
    expect(again.meta.status).toBe('complete');
    // Today's slices completed today: answers keep arriving until the day ends (UTC), so they are not complete yet.
    if (todayUtc() === TODAY) expect([...daysAsked(since).days]).toEqual([TODAY]);
    expect(again.meta.skipped).toEqual({ 1: 2 * 6 + 1 });
  }, 120_000);

  it('counts the slices it skipped once when its plan job is replayed: those the run read stay its own', async () => {
    // The command's run: the fourth backfill (after the good, the refused and the odd one).
    const backfills = (await query(
      `SELECT run_id FROM _sync_runs WHERE kind = 'backfill' ORDER BY started_at`,
    )) as Array<{ run_id: string }>;
    const runId = backfills[3]!.run_id;
    const redis = connectRedis(fx.redisUrl);
    const queues = openQueues(redis, fx.config.redisPrefix);
    const warehouse = await openWarehouse(workingPathFor(fx.config.db));
    const runs = new RunStore(redis, fx.config.redisPrefix);
    try {
      const before = (await runs.get(runId))!;
      expect(before.skipped).toEqual({ 1: 7 });
      // As when the writer died in the middle of planning: the run is still running (a finished run's record is final).
      await redis.hset(
        redisKeys(fx.config.redisPrefix).run(runId, ''),
        'meta',
        JSON.stringify({ ...before, status: 'running' }),
      );
      // Days 3..1 back loaded complete in this run, once over; replayed, the plan job must not count them skipped.
      const processor = loadProcessor({
        redis,
        prefix: fx.config.redisPrefix,
        queues,
        runs,
        warehouse,
        config: fx.config,
        log: fx.log,
        onWriterFault: () => undefined,
        stopSignal: new AbortController().signal,
      });
      await processor({ name: 'plan', id: `plan-${runId}-1`, data: { runId, phase: 1 } } as unknown as Job);
      expect((await runs.get(runId))!.skipped).toEqual({ 1: 7 });
    } finally {
      await warehouse.close();
      await queues.close();
      redis.disconnect();
    }
  }, 120_000);

  it('reads again a full-refresh list not read today: it is what the list is now, and articles file the day they read', async () => {
    const articles = await runInProcess(fx, {
      kind: 'backfill',
      from: day(1),
      to: day(1),
      today: TODAY,
      streams: ['articles'],
    });
    expect(articles.meta.status).toBe('complete');
    // As if both lists were last read by a run of yesterday: today has no status row yet.
    await tamper([
      `UPDATE _sync_runs SET started_at = started_at - INTERVAL 1 DAY WHERE run_id IN (SELECT run_id FROM _sync_state WHERE stream IN ('articles', 'competitors'))`,
      `DELETE FROM article_status_daily WHERE "day" = CAST('${TODAY}' AS DATE)`,
    ]);
    const since = fx.sim.requestLog().length;
    const again = await runInProcess(fx, {
      kind: 'backfill',
      from: day(1),
      to: day(1),
      today: TODAY,
      streams: ['articles', 'competitors'],
      skipComplete: true,
    });
    expect(again.meta.status).toBe('complete');
    expect(again.meta.skipped).toBeUndefined();
    expect(asked(since, '/articles')).toBeGreaterThan(0);
    expect(asked(since, '/competitors')).toBeGreaterThan(0);
    expect(await statusDays()).toContain(TODAY);
    // Read today, both are left out the next time, whatever --today says.
    const third = await runInProcess(fx, {
      kind: 'backfill',
      from: day(1),
      to: day(1),
      today: day(3),
      streams: ['articles', 'competitors'],
      skipComplete: true,
    });
    expect(third.meta.skipped).toEqual({ 1: 2 });
  }, 120_000);

  it('reads again a list a run planned before midnight and loaded after it: its status row is of the day before', async () => {
    await tamper([
      `UPDATE _sync_runs SET started_at = CAST('${day(1)} 23:59:50+00' AS TIMESTAMPTZ) WHERE run_id IN (SELECT run_id FROM _sync_state WHERE stream = 'articles')`,
      `UPDATE _sync_state SET completed_at = CAST('${TODAY} 00:00:30+00' AS TIMESTAMPTZ) WHERE stream = 'articles'`,
      `DELETE FROM article_status_daily WHERE "day" = CAST('${TODAY}' AS DATE)`,
    ]);
    const since = fx.sim.requestLog().length;
    const again = await runInProcess(fx, {
      kind: 'backfill',
      from: day(1),
      to: day(1),
      today: TODAY,
      streams: ['articles'],
      skipComplete: true,
    });
    expect(again.meta.skipped).toBeUndefined();
    expect(asked(since, '/articles')).toBeGreaterThan(0);
    expect(await statusDays()).toContain(TODAY);
  }, 120_000);

  it('reads again, with --today in the past, a list last read by a run of yesterday: articles file the real today', async () => {
    await tamper([
      `UPDATE _sync_runs SET started_at = started_at - INTERVAL 1 DAY WHERE run_id IN (SELECT run_id FROM _sync_state WHERE stream = 'articles')`,
      `DELETE FROM article_status_daily WHERE "day" = CAST('${TODAY}' AS DATE)`,
    ]);
    const since = fx.sim.requestLog().length;
    const again = await runInProcess(fx, {
      kind: 'backfill',
      from: day(1),
      to: day(1),
      today: day(3),
      streams: ['articles'],
      skipComplete: true,
    });
    expect(again.meta.skipped).toBeUndefined();
    expect(asked(since, '/articles')).toBeGreaterThan(0);
    expect(await statusDays()).toContain(TODAY);
  }, 120_000);

  it('is another run than the plain backfill of the same window, which reads every slice', async () => {
    const since = fx.sim.requestLog().length;
    const plain = await runInProcess(fx, { kind: 'backfill', from: day(1), to: day(1), today: TODAY, streams: DAILY });
    expect(plain.meta.status).toBe('complete');
    expect(plain.meta.skipped).toBeUndefined();
    expect([...daysAsked(since).days]).toEqual([day(1)]);
  }, 120_000);
});
