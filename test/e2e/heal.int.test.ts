import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, eachDay } from '../../src/days.js';
import { scheduledRunId } from '../../src/engine/schedule/scheduler.js';
import { enqueueRun } from '../../src/engine/run/start-run.js';
import { WorkerHost } from '../../src/engine/jobs/worker-host.js';
import { Notifier } from '../../src/notify/notifier.js';
import { PrometheusMetrics } from '../../src/ops/prometheus-metrics.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  queryOnChange,
  runBvsync,
  writeCliConfig,
  type EngineFixture,
} from '../support/engine.js';
import { until } from '../support/until.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * `sync.heal` (docs/healing.md): after each scheduled run the writer compares the days before its today with the API's
 * range answers, re-reads what disagrees, and compares again. Answers that arrive after the lookback are healed by
 * the next scheduled runs with no human; a range answer that disagrees forever is told once and not re-read again.
 */

const FIRST_TODAY = '2026-11-20';
const STREAMS = ['visibility', 'competitors', 'tracked_urls', 'conversations', 'citations', 'product_ranking'];
const HEAL = { days: 5, maxCalls: 200, maxReadCalls: 200 };

interface Round {
  status: string;
  disagreeing_before: string[];
  reread: string[];
  left_unread: string[];
  disagreeing_after: string[] | null;
  persisting: string[];
  reported: string[];
  verify_requests: number;
  read_requests: number;
  window_start: string;
  window_end: string;
}

/** Runs the scheduled run of a day's slot, as `bvsync scheduler` enqueues it, and waits for its healing round to end. */
async function scheduledRunHealed(fx: EngineFixture, today: string, hour = '06'): Promise<Round> {
  const runId = scheduledRunId('daily', new Date(`${today}T${hour}:00:00Z`));
  await enqueueRun({
    config: fx.config,
    redisUrl: fx.redisUrl,
    log: fx.log,
    kind: 'scheduled',
    runId,
    brands: fx.config.brands,
    streams: STREAMS,
    today,
  });
  let round: Round | undefined;
  // The published file is replaced as the writer publishes: a read that meets the swap tries again.
  const poll = queryOnChange(fx.config.db);
  await until(
    `the healing round after ${runId}`,
    async () => {
      const rows = await poll(
        `SELECT * EXCLUDE (window_start, window_end), window_start::VARCHAR AS window_start, window_end::VARCHAR AS window_end FROM _heal_runs WHERE heal_id = $1 AND finished_at IS NOT NULL`,
        [runId],
      );
      round = rows?.[0] as Round | undefined;
      return round !== undefined;
    },
    180_000,
    200,
  );
  return round!;
}

function startHost(fx: EngineFixture, metrics?: PrometheusMetrics): WorkerHost {
  const notifier = new Notifier({ config: fx.config, log: fx.log, retryBaseMs: 10 });
  return new WorkerHost({
    config: fx.config,
    redisUrl: fx.redisUrl,
    log: fx.log,
    leaseTtlMs: 2_000,
    notifier,
    metrics,
  });
}

/** The value of a metric without labels, as the worker's /metrics would show it. */
async function metricValue(metrics: PrometheusMetrics, name: string): Promise<number> {
  const [value] = (await metrics.registry.getSingleMetric(name)!.get()).values;
  return value!.value;
}

describe('sync.heal with answers that arrive after the lookback', () => {
  let fx: EngineFixture;
  let host: WorkerHost;

  beforeAll(async () => {
    fx = await engineFixture('heal-late', {
      sim: { brands: 1, lateShare: 0.3, lateDays: 3 },
      config: { sync: { initialDays: 6, lookbackDays: 1, fetchConcurrency: 8, heal: HEAL } },
    });
    host = startHost(fx);
    await host.start();
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
    await fx?.cleanup();
  });

  async function shortDays(from: string, to: string): Promise<string[]> {
    const [brandId] = fx.config.brands as [number];
    const stored = await queryFile(
      fx.config.db,
      'SELECT "day"::VARCHAR AS day, count(*)::INTEGER AS n FROM conversations WHERE brand_id = $1 GROUP BY ALL',
      [brandId],
    );
    const storedOn = new Map(stored.map((row) => [String(row.day), Number(row.n)]));
    return eachDay(from, to).filter((day) => (storedOn.get(day) ?? 0) !== fx.sim.truth.answers(brandId, day).length);
  }

  it('finds nothing to heal while the API shows what the run read', async () => {
    const round = await scheduledRunHealed(fx, FIRST_TODAY);
    expect(round.window_start).toBe(addDays(FIRST_TODAY, -HEAL.days));
    expect(round.window_end).toBe(addDays(FIRST_TODAY, -1));
    expect(round.disagreeing_before).toEqual([]);
    expect(round.status).toBe('agree');
  }, 240_000);

  it("re-reads the days whose late answers the lookback missed, and the warehouse then holds the API's figures", async () => {
    const [brandId] = fx.config.brands as [number];
    fx.sim.advanceClock(3);
    const today = fx.sim.truth.today();
    // The late answers of the two days before the first today arrived after the one-day lookback had passed them.
    const missed = [addDays(FIRST_TODAY, -2), addDays(FIRST_TODAY, -1)];
    const round = await scheduledRunHealed(fx, today);
    for (const day of missed) {
      expect(round.disagreeing_before).toContain(`${brandId}|conversations|${day}`);
      expect(round.reread).toContain(`${brandId}|conversations|${day}`);
    }
    expect(round.disagreeing_after).toEqual([]);
    expect(round.status).toBe('healed');
    expect(round.verify_requests).toBeGreaterThan(0);
    expect(round.verify_requests).toBeLessThanOrEqual(HEAL.maxCalls);
    expect(round.reread.length).toBeLessThanOrEqual(HEAL.maxReadCalls);
    expect(round.read_requests).toBeGreaterThan(0);
    expect(await shortDays(addDays(today, -HEAL.days), addDays(today, -1))).toEqual([]);
    const healRuns = await queryFile(fx.config.db, "SELECT status FROM _sync_runs WHERE kind = 'heal'");
    expect(healRuns.map((row) => row.status)).toEqual(['complete']);
  }, 240_000);

  it('heals the next late days at the next scheduled run too', async () => {
    fx.sim.advanceClock(3);
    const today = fx.sim.truth.today();
    const round = await scheduledRunHealed(fx, today);
    expect(round.disagreeing_before.length).toBeGreaterThan(0);
    expect(round.status).toBe('healed');
    expect(await shortDays(addDays(today, -HEAL.days), addDays(today, -1))).toEqual([]);
  }, 240_000);
});

describe('sync.heal with a read budget too small for every late day', () => {
  let fx: EngineFixture;
  let host: WorkerHost;

  beforeAll(async () => {
    fx = await engineFixture('heal-capped', {
      sim: { brands: 1, lateShare: 0.3, lateDays: 3 },
      config: { sync: { initialDays: 6, lookbackDays: 1, fetchConcurrency: 8, heal: { ...HEAL, maxReadCalls: 12 } } },
    });
    host = startHost(fx);
    await host.start();
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
    await fx?.cleanup();
  });

  it('re-reads the newest days first and records the rest as left unread', async () => {
    await scheduledRunHealed(fx, FIRST_TODAY);
    fx.sim.advanceClock(3);
    const round = await scheduledRunHealed(fx, fx.sim.truth.today());
    const dayOf = (each: string) => each.split('|')[2]!;
    expect(round.reread.length).toBeGreaterThan(0);
    expect(round.left_unread.length).toBeGreaterThan(0);
    expect(round.reread.map(dayOf).sort()[0]! >= round.left_unread.map(dayOf).sort().at(-1)!).toBe(true);
    expect(round.status).toBe('disagree');
    // No faults and no page gained: each day costs what it cost when last read, so the re-read keeps to its budget.
    expect(round.read_requests).toBeGreaterThan(0);
    expect(round.read_requests).toBeLessThanOrEqual(12);
  }, 240_000);
});

describe('sync.heal against range answers that disagree forever', () => {
  const STUCK_DAY = addDays(FIRST_TODAY, -3);
  let fx: EngineFixture;
  let host: WorkerHost;
  let receiver: WebhookReceiver;
  let brandId: number;
  const metrics = new PrometheusMetrics({ processMetrics: false });

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    fx = await engineFixture('heal-stuck', {
      sim: { brands: 1 },
      config: {
        sync: { initialDays: 6, lookbackDays: 1, fetchConcurrency: 8, heal: HEAL },
        notify: { webhooks: [{ url: `${receiver.url}/hook`, events: ['verify_disagreement'] }] },
      },
    });
    [brandId] = fx.config.brands as [number];
    fx.sim.setKnobs({ rangeSurplusDays: [STUCK_DAY] });
    host = startHost(fx, metrics);
    await host.start();
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
    await receiver?.close();
    await fx?.cleanup();
  });

  it('re-reads the disagreement once, and tells of what survives the re-read in one webhook', async () => {
    const round = await scheduledRunHealed(fx, FIRST_TODAY);
    const stuck = `${brandId}|conversations|${STUCK_DAY}`;
    expect(round.reread).toContain(stuck);
    expect(round.disagreeing_after).toContain(stuck);
    expect(round.persisting).toContain(stuck);
    expect(round.reported).toContain(stuck);
    expect(round.status).toBe('disagree');
    await receiver.waitFor(1);
    const payload = receiver.received[0]!.json();
    expect(payload.event).toBe('verify_disagreement');
    expect(payload.disagreements).toContainEqual({ brand: brandId, family: 'conversations', day: STUCK_DAY });
    // The fields docs/operations.md lists for the event: the scheduled run, and the window its round compared.
    expect(payload.run).toBe(scheduledRunId('daily', new Date(`${FIRST_TODAY}T06:00:00Z`)));
    expect(payload.window).toEqual({ from: round.window_start, to: round.window_end });
    expect(await metricValue(metrics, 'bvsync_heal_disagreements')).toBe(round.persisting.length);
  }, 240_000);

  it('does not re-read it or tell of it again at the next scheduled run, and status says it persists', async () => {
    fx.sim.advanceClock(1);
    const round = await scheduledRunHealed(fx, fx.sim.truth.today());
    const stuck = `${brandId}|conversations|${STUCK_DAY}`;
    expect(round.disagreeing_before).toContain(stuck);
    expect(round.reread).not.toContain(stuck);
    expect(round.left_unread).toContain(stuck);
    expect(round.persisting).toContain(stuck);
    expect(round.reported).toEqual([]);
    expect(round.status).toBe('disagree');

    const status = await runBvsync(['status', '--config', writeCliConfig(fx)], cliEnv(fx));
    const lines = status.stdout.split('\n').filter((line) => line.startsWith('Healing (sync.heal)'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('still disagree after a re-read');
    expect(lines[0]).toContain(stuck);
    // The second round told no one: its `reported` is empty, and the receiver still holds the one notice.
    expect(receiver.received).toHaveLength(1);
  }, 240_000);
});

describe('sync.heal when two rounds overlap on a range answer that disagrees forever', () => {
  const STUCK_DAY = addDays(FIRST_TODAY, -3);
  let fx: EngineFixture;
  let host: WorkerHost;
  let brandId: number;

  beforeAll(async () => {
    fx = await engineFixture('heal-overlap', {
      sim: { brands: 1 },
      config: { sync: { initialDays: 6, lookbackDays: 1, fetchConcurrency: 8, heal: HEAL } },
    });
    [brandId] = fx.config.brands as [number];
    fx.sim.setKnobs({ rangeSurplusDays: [STUCK_DAY] });
    host = startHost(fx);
    await host.start();
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
    await fx?.cleanup();
  });

  it('tells of it in one round only, whichever round re-read it', async () => {
    // Two slots of one day started together: the second's comparison may run while the first still re-reads.
    const rounds = await Promise.all([
      scheduledRunHealed(fx, FIRST_TODAY, '06'),
      scheduledRunHealed(fx, FIRST_TODAY, '07'),
    ]);
    const stuck = `${brandId}|conversations|${STUCK_DAY}`;
    for (const round of rounds) expect(round.persisting).toContain(stuck);
    expect(rounds.filter((round) => round.reported.includes(stuck))).toHaveLength(1);
  }, 240_000);
});
