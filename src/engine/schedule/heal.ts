import type { Redis } from 'ioredis';
import { createApiClient, configuredRateBudget } from '../../api/index.js';
import { addDays, eachDay } from '../../days.js';
import type { Logger } from '../../log.js';
import type { Notifier } from '../../notify/index.js';
import type { SyncMetrics } from '../../ops/sync-metrics.js';
import { isStreamName } from '../../streams/registry.js';
import { CallBudget } from '../../verify/call-budget.js';
import { FIGURE_FAMILIES } from '../../verify/families.js';
import type { DayWindow } from '../../verify/figure.js';
import { verifyWarehouse, type VerifyReport } from '../../verify/verify-warehouse.js';
import type { HealRound } from '../../warehouse/state/heal-log.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { enqueuePlan } from '../jobs/enqueue.js';
import type { PlannedSlice } from '../plan/plan.js';
import type { Queues } from '../jobs/queues.js';
import { totalCounters, type RunMeta, type RunStore } from '../run/run-store.js';
import { newRunMeta } from '../run/start-run.js';
import type { Config } from '../../configuration.js';
import { errorMessage } from '../../format.js';
import { brandStreamId } from '../../slice-ids.js';

/**
 * `sync.heal` (docs/healing.md), in writer load jobs: after a scheduled run, a `heal` run re-reads days that disagree
 * with the API's range answers; what still disagrees goes to `_heal_runs`, told once (test/e2e/heal.int.test.ts).
 */
export interface HealDeps {
  redis: Redis;
  prefix: string;
  queues: Queues;
  runs: RunStore;
  warehouse: Warehouse;
  config: Config;
  log: Logger;
  /** Told about rows written and rejected and how long each commit took; default none. */
  metrics?: SyncMetrics;
  /** Told of runs that end failed or incomplete, and of stale data after each run; default none. */
  notifier?: Notifier;
  /** Aborted as the process begins to stop: a comparison's calls end then, not at their timeouts. */
  stopSignal: AbortSignal;
}

/** The run id of the re-read of a scheduled run's round: one per round, however often its job is replayed. */
function healRunId(scheduledRunId: string): string {
  return `heal-${scheduledRunId}`;
}

/** A disagreement as `_heal_runs` writes it. */
function triple(brandId: number, family: string, day: string): string {
  return `${brandId}|${family}|${day}`;
}

function parseTriple(text: string): { brand: number; family: string; day: string } {
  const [brand, family, day] = text.split('|');
  return { brand: Number(brand), family: family!, day: day! };
}

export async function healAfter(deps: HealDeps, meta: RunMeta): Promise<void> {
  if (!deps.config.sync.heal) return;
  if (meta.kind === 'scheduled') return compareAndReread(deps, meta);
  if (meta.kind === 'heal' && meta.heal) return compareAgain(deps, meta);
}

/** Each family's disagreeing days (undivided windows whole) and the windows the budget left unsplit, as triples. */
function disagreementsOf(report: VerifyReport): { triples: string[]; unresolved: string[] } {
  const triples = new Set<string>();
  const unresolved: string[] = [];
  for (const brand of report.brands) {
    for (const verdict of brand.byFamily) {
      const days = [...verdict.days, ...verdict.undivided.flatMap((window) => eachDay(window.from, window.to))];
      for (const day of days) triples.add(triple(brand.brandId, verdict.family, day));
      for (const window of verdict.unresolved)
        unresolved.push(triple(brand.brandId, verdict.family, `${window.from}..${window.to}`));
    }
  }
  return { triples: [...triples].sort(), unresolved };
}

/**
 * Compares the window with the API through a client of its own, whose rate budget refuses any attempt past `limit`
 * before it is sent: a family or half it leaves out is unresolved (test/e2e/heal.int.test.ts, "maxCalls").
 */
async function compare(
  deps: HealDeps,
  brands: number[],
  window: DayWindow,
  families: readonly string[],
  limit: number,
): Promise<{ report: VerifyReport; requests: number } | { failed: string; requests: number }> {
  const { config, log } = deps;
  const budget = new CallBudget(limit, true);
  const client = createApiClient(config.api, {
    logger: log,
    budget: budget.bounding(configuredRateBudget(config, deps.redis, { logger: log })),
    retryRateLimited: true,
    signal: deps.stopSignal,
    onRequest: () => budget.count(),
  });
  try {
    const report = await deps.warehouse.withReadConnection((connection) =>
      verifyWarehouse({
        client,
        connection,
        brands,
        window,
        budget,
        families: FIGURE_FAMILIES.filter((family) => families.includes(family.name)),
        engineBreakdown: config.sync.engineBreakdown,
        newestFirst: true,
      }),
    );
    return { report, requests: budget.total() };
  } catch (error) {
    // Failed, the job would be tried again and pay maxCalls each time: the round ends, its window unresolved.
    if (deps.stopSignal.aborted) throw error;
    return { failed: errorMessage(error), requests: budget.total() };
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function compareAndReread(deps: HealDeps, meta: RunMeta): Promise<void> {
  const settings = deps.config.sync.heal!;
  // A replayed job finds its round recorded: the comparison is not made (and paid for) twice.
  if (await deps.warehouse.healRound(meta.runId)) return;
  const window = { from: addDays(meta.today, -settings.days), to: addDays(meta.today, -1) };
  const remembered = new Set((await deps.warehouse.lastFinishedHealRound())?.persisting ?? []);
  const families = FIGURE_FAMILIES.map((family) => family.name);
  const compared = await compare(deps, meta.brands, window, families, settings.maxCalls);
  const requests = compared.requests;
  if ('failed' in compared) {
    deps.log.warn(
      { run: meta.runId, window, requests, err: compared.failed },
      'heal: the comparison failed; the next round compares again',
    );
    const whole = meta.brands.flatMap((brand) =>
      families.map((family) => triple(brand, family, `${window.from}..${window.to}`)),
    );
    return finishRound(deps, {
      healId: meta.runId,
      readRunId: null,
      windowStart: window.from,
      windowEnd: window.to,
      families: [],
      disagreeingBefore: [],
      reread: [],
      leftUnread: [],
      unresolved: whole,
      disagreeingAfter: null,
      persisting: [...remembered].sort(),
      reported: [],
      verifyRequests: requests,
      readRequests: 0,
      status: 'disagree',
    });
  }
  const { triples, unresolved } = disagreementsOf(compared.report);
  const carried = triples.filter((each) => remembered.has(each));
  // The newest days first, until the read budget is spent: older ones had more time for their answers to arrive.
  // A family is read again through the stream of its name; one without such a stream could only be reported.
  const candidates = triples
    .filter((each) => !remembered.has(each) && isStreamName(parseTriple(each).family))
    .sort((a, b) => parseTriple(b).day.localeCompare(parseTriple(a).day) || a.localeCompare(b));
  const costs = await readCosts(deps, meta, window);
  const reread: string[] = [];
  let cost = 0;
  // Past the budget, the rest of that day's families may still fit; no older day is read while a newer one waits.
  let fullOn: string | undefined;
  for (const each of candidates) {
    const { brand, family, day } = parseTriple(each);
    if (fullOn !== undefined && day !== fullOn) break;
    const more = costs.cost(brand, family, day);
    if (cost + more > settings.maxReadCalls) {
      fullOn = day;
      continue;
    }
    cost += more;
    costs.charge(brand, family);
    reread.push(each);
  }
  const leftUnread = triples.filter((each) => !reread.includes(each));
  const round: Omit<HealRound, 'startedAt' | 'finishedAt'> = {
    healId: meta.runId,
    readRunId: reread.length ? healRunId(meta.runId) : null,
    windowStart: window.from,
    windowEnd: window.to,
    families: [...new Set(triples.map((each) => parseTriple(each).family))].sort(),
    disagreeingBefore: triples,
    reread: [...reread].sort(),
    leftUnread,
    unresolved,
    disagreeingAfter: null,
    persisting: carried,
    reported: [],
    verifyRequests: requests,
    readRequests: 0,
    status: reread.length ? 'reading' : triples.length || unresolved.length ? 'disagree' : 'agree',
  };
  const counts = { disagreeing: triples.length, reread: reread.length, leftUnread: leftUnread.length, requests };
  deps.log.info({ run: meta.runId, window, ...counts }, 'heal: compared the days before the scheduled run');
  if (!reread.length) return finishRound(deps, round);
  await startReread(deps, meta, reread);
  await deps.warehouse.saveHealRound(round, false);
}

/**
 * What re-reading a brand, stream and day costs, from `_sync_state.requests` of its last read; a stream with no
 * history costs a day of the scheduled run (docs/healing.md, "Budgets"; test/e2e/heal.int.test.ts).
 */
async function readCosts(deps: HealDeps, meta: RunMeta, window: DayWindow) {
  const counters = await deps.runs.counters(meta.runId);
  const days = meta.from && meta.to ? eachDay(meta.from, meta.to).length : 1;
  const rows = await deps.warehouse.requestsByDay(window);
  const dayCost = new Map<string, number>();
  // The window and snapshot slices of a brand and stream, as the newest run that read them read them.
  const windowCost = new Map<string, { at: string; requests: number }>();
  for (const row of rows) {
    const brandStream = brandStreamId(Number(row.brand_id), String(row.stream));
    if (row.day !== null) dayCost.set(`${brandStream}|${String(row.day)}`, Number(row.requests));
    else if (!windowCost.has(brandStream) || windowCost.get(brandStream)!.at < String(row.at))
      windowCost.set(brandStream, { at: String(row.at), requests: Number(row.requests) });
  }
  const charged = new Set<string>();
  return {
    cost(brandId: number, stream: string, day: string): number {
      const brandStream = brandStreamId(brandId, stream);
      if (!dayCost.has(triple(brandId, stream, day)) && !windowCost.has(brandStream)) {
        return Math.max(1, Math.ceil((counters.get(brandStream)?.requests ?? 0) / days));
      }
      const whole = charged.has(brandStream) ? 0 : (windowCost.get(brandStream)?.requests ?? 0);
      return Math.max(1, (dayCost.get(triple(brandId, stream, day)) ?? 0) + whole);
    },
    charge(brandId: number, stream: string): void {
      charged.add(brandStreamId(brandId, stream));
    },
  };
}

/** A run of kind `heal`: a backfill of the triples' days and streams (a family is named after its stream), the rest left out. */
async function startReread(deps: HealDeps, scheduled: RunMeta, reread: string[]): Promise<void> {
  const parts = reread.map(parseTriple);
  const days = parts.map((part) => part.day).sort();
  const runId = healRunId(scheduled.runId);
  const meta = newRunMeta(runId, {
    config: deps.config,
    kind: 'heal',
    brands: [...new Set(parts.map((part) => part.brand))].sort((a, b) => a - b),
    streams: [...new Set(parts.map((part) => part.family))],
    today: scheduled.today,
    from: days[0],
    to: days.at(-1),
    heal: { of: scheduled.runId, reads: [...reread].sort() },
  });
  const created = await deps.runs.create(meta);
  const current = created ? meta : await deps.runs.get(runId);
  if (created || current?.status === 'planning') await enqueuePlan(deps.queues, { runId, phase: 1 });
}

/** The slices of a `heal` run: those of a triple's brand, stream and day, and window slices that hold such a day. */
export function healSlices(reads: readonly string[], planned: PlannedSlice[]): PlannedSlice[] {
  const wanted = new Set(reads);
  const days = (brandId: number, stream: string) =>
    reads
      .map(parseTriple)
      .filter((part) => part.brand === brandId && part.family === stream)
      .map((part) => part.day);
  return planned.filter((slice) => {
    if (slice.day !== null) return wanted.has(triple(slice.brandId, slice.stream, slice.day));
    if (slice.from === null || slice.to === null) return false;
    return days(slice.brandId, slice.stream).some((day) => day >= slice.from! && day <= slice.to!);
  });
}

async function compareAgain(deps: HealDeps, meta: RunMeta): Promise<void> {
  const settings = deps.config.sync.heal!;
  const round = await deps.warehouse.healRound(meta.heal!.of);
  if (round?.status !== 'reading') return;
  const parts = round.reread.map(parseTriple);
  const days = parts.map((part) => part.day).sort();
  const window = { from: days[0]!, to: days.at(-1)! };
  const brands = [...new Set(parts.map((part) => part.brand))];
  const families = [...new Set(parts.map((part) => part.family))];
  const compared = await compare(deps, brands, window, families, Math.max(0, settings.maxCalls - round.verifyRequests));
  const requests = compared.requests;
  if ('failed' in compared)
    deps.log.warn(
      { run: round.healId, window, requests, err: compared.failed },
      'heal: the second comparison failed; what was re-read stays unresolved',
    );
  // Only what was re-read is judged: a day of the span it did not read waits for the next round.
  const reread = new Set(round.reread);
  const second = 'failed' in compared ? { triples: [], unresolved: round.reread } : disagreementsOf(compared.report);
  const after = second.triples.filter((each) => reread.has(each));
  const { requests: readRequests } = totalCounters((await deps.runs.counters(meta.runId)).values());
  const persisting = [...new Set([...round.persisting, ...after])].sort();
  // Rounds overlap when a scheduled run ends while another round re-reads: what one told of, the other does not tell.
  const told = await deps.warehouse.persistingToldSince(round.healId);
  await finishRound(deps, {
    ...round,
    disagreeingAfter: after,
    persisting,
    reported: after.filter((each) => !told.has(each)),
    // A re-read day the budget left the second comparison no request for is not known healed.
    unresolved: [...round.unresolved, ...second.unresolved],
    verifyRequests: round.verifyRequests + requests,
    readRequests,
    status:
      persisting.length || round.leftUnread.length || round.unresolved.length || second.unresolved.length
        ? 'disagree'
        : 'healed',
  });
  deps.log.info(
    { run: round.healId, reread: round.reread.length, after: after.length, requests, readRequests },
    'heal: compared the re-read days again',
  );
}

/** Records the round's end, publishes it (status reads the published file), then tells of what newly persists. */
async function finishRound(deps: HealDeps, round: Omit<HealRound, 'startedAt' | 'finishedAt'>): Promise<void> {
  await deps.warehouse.saveHealRound(round, true);
  await deps.warehouse.publish(deps.config.db);
  deps.metrics?.healRound?.({
    status: round.status,
    persisting: round.persisting.length,
    requests: round.verifyRequests + round.readRequests,
  });
  if (round.reported.length && deps.notifier) {
    void deps.notifier.notify({
      event: 'verify_disagreement',
      run: round.healId,
      window: { from: round.windowStart, to: round.windowEnd },
      disagreements: round.reported.map(parseTriple),
    });
  }
}
