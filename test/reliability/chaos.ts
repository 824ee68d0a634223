// npm run chaos [-- --rounds N --minutes M --seed S --only crash,redis,api,bad]
//
// The reliability scenarios of the integration tests, repeated with more rounds and random moments: worker processes
// SIGKILLed at random points of a backfill (paging, inside a load transaction, just after a commit, publishing),
// Redis killed with and without its data, an unreliable API, drifting records. Every round is measured against one
// clean run of the same window on the same simulator seed (a checksum per table, and `_sync_state`). Prints a line
// per round as it goes and a table at the end; exits 1 if any round did not survive. Bounded by --minutes: no round
// starts after the budget is spent.
import Table from 'cli-table3';
import { parseArgs } from 'node:util';
import {
  API_TROUBLES,
  apiTroubleScenario,
  badDataScenario,
  cleanReference,
  crashScenario,
  PrivateRedis,
  redisTroubleScenario,
  survived,
  type ApiTrouble,
  type KillMoment,
  type ScenarioOutcome,
} from './scenarios.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    minutes: { type: 'string', default: '10' },
    seed: { type: 'string' },
    only: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const budgetMs = Number(values.minutes) * 60_000;
const seed = values.seed ? Number(values.seed) : Date.now() % 1_000_000;
const families = new Set((values.only ?? 'crash,redis,api,bad').split(',').map((name) => name.trim()));
if (!Number.isInteger(rounds) || rounds < 1 || !(budgetMs > 0) || !Number.isFinite(seed)) {
  process.stderr.write('usage: chaos.ts [--rounds N] [--minutes M] [--seed S] [--only crash,redis,api,bad]\n');
  process.exit(2);
}

/** mulberry32: a small seeded generator, so a failing round can be replayed with --seed. */
function generator(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = generator(seed);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** 3 to 6 kills at random moments, in run order (paging and load kills first, a publish kill last when drawn). */
function randomMoments(): KillMoment[] {
  const count = 3 + Math.floor(random() * 4);
  const moments: KillMoment[] = [];
  let at = 0;
  for (let index = 0; index < count; index++) {
    const kind = pick(['paging', 'transaction', 'commit-timing'] as const);
    if (kind === 'paging') {
      at = Math.min(0.9, at + 0.05 + random() * 0.25);
      moments.push({ kind, at });
    } else if (kind === 'transaction') moments.push({ kind, commit: 1 + Math.floor(random() * 6) });
    else moments.push({ kind, delayMs: Math.floor(random() * 40) });
  }
  if (random() < 0.8) moments.push({ kind: 'publish' });
  return moments;
}

/**
 * The same kind of trouble with other numbers each round: the simulator's faults are seeded, so only other knobs (and
 * the order the client's concurrent requests happen in) make a round differ from the last.
 */
function vary(trouble: ApiTrouble): ApiTrouble {
  const knobs = { ...trouble.knobs };
  if (knobs.faultRate) knobs.faultRate = Math.round((0.1 + random() * 0.2) * 100) / 100;
  if (knobs.rateLimit) knobs.rateLimit = 4 + Math.floor(random() * 10);
  if (knobs.retryAfterSeconds) knobs.retryAfterSeconds = 2 + Math.floor(random() * 3);
  if (knobs.latencyMs && trouble.api?.headersTimeoutMs)
    knobs.latencyMs = Math.floor(trouble.api.headersTimeoutMs * (0.5 + random() * 0.3));
  return { ...trouble, knobs };
}

const started = Date.now();
const outcomes: ScenarioOutcome[] = [];
const timeLeft = () => budgetMs - (Date.now() - started);

function report(outcome: ScenarioOutcome): void {
  outcomes.push(outcome);
  const verdict = survived(outcome) ? 'survived' : 'FAILED';
  const detail = survived(outcome)
    ? ''
    : ` — status ${outcome.status}; tables differing: ${outcome.differences.map((d) => `${d.table} (${d.expected?.rows ?? 0} vs ${d.actual?.rows ?? 0} rows)`).join(', ') || 'none'}; ` +
      `_sync_state lines differing: ${outcome.stateDifferences}; ${outcome.problems.join('; ')}`;
  process.stdout.write(
    `[${((Date.now() - started) / 1000).toFixed(0)} s] ${outcome.scenario}: ${verdict}${detail}\n    ${outcome.disturbed.join('\n    ')}\n`,
  );
}

async function attempt(name: string, run: () => Promise<ScenarioOutcome>): Promise<void> {
  try {
    report(await run());
  } catch (error) {
    report({
      scenario: name,
      rounds: 1,
      disturbed: ['(the scenario itself broke)'],
      retries: 0,
      rateLimited: 0,
      differences: [],
      stateDifferences: 0,
      status: 'error',
      problems: [(error as Error).message],
    });
  }
}

process.stdout.write(
  `chaos: seed ${seed}, ${rounds} rounds, ${values.minutes} minutes at most (replay with --seed ${seed})\n`,
);
const reference = await cleanReference();
process.stdout.write(`clean run: ${reference.states.length} slices in ${reference.seconds.toFixed(1)} s\n`);
const haveRedisServer = PrivateRedis.available();
if (families.has('redis') && !haveRedisServer)
  process.stdout.write('redis scenarios skipped: no redis-server on PATH\n');

try {
  for (let round = 1; round <= rounds && timeLeft() > 0; round++) {
    process.stdout.write(`-- round ${round}\n`);
    if (families.has('crash') && timeLeft() > 0)
      await attempt('crash', () =>
        crashScenario(reference, { moments: randomMoments(), latencyMs: 10 + Math.floor(random() * 20) }),
      );
    if (families.has('redis') && haveRedisServer) {
      for (const keepData of [true, false]) {
        const withWorker = random() < 0.5;
        if (timeLeft() > 0) {
          await attempt(`redis (${keepData ? 'kept' : 'lost'})`, () =>
            redisTroubleScenario(reference, {
              keepData,
              withWorker,
              at: 0.1 + random() * 0.6,
              downMs: 200 + Math.floor(random() * 2_000),
            }),
          );
        }
      }
    }
    if (families.has('api')) {
      for (const trouble of API_TROUBLES)
        if (timeLeft() > 0) await attempt(`api: ${trouble.name}`, () => apiTroubleScenario(reference, vary(trouble)));
    }
    if (families.has('bad') && timeLeft() > 0) {
      const shares = {
        invalidShare: 0.02 + random() * 0.08,
        extraFieldShare: random() * 0.3,
        unknownEnumShare: 0.05 + random() * 0.25,
      };
      shares.invalidShare = Math.round(shares.invalidShare * 100) / 100;
      shares.extraFieldShare = Math.max(0.02, Math.round(shares.extraFieldShare * 100) / 100);
      shares.unknownEnumShare = Math.round(shares.unknownEnumShare * 100) / 100;
      await attempt('bad data', () => badDataScenario(reference, shares));
    }
  }
} finally {
  await reference.fx.cleanup();
}

/** One line per scenario: rounds run, what was done to them, retries and 429s met, and how many survived. */
function summarise(): string {
  const table = new Table({
    head: ['scenario', 'rounds', 'what was disturbed', 'retries / 429s', 'result'],
    style: { head: [], border: [] },
    colWidths: [44, 8, 70, 16, 22],
    wordWrap: true,
  });
  const byScenario = new Map<string, ScenarioOutcome[]>();
  for (const outcome of outcomes)
    byScenario.set(outcome.scenario, [...(byScenario.get(outcome.scenario) ?? []), outcome]);
  for (const [scenario, list] of byScenario) {
    const ok = list.filter(survived).length;
    table.push([
      scenario,
      list.length,
      disturbedSummary(scenario, list),
      `${list.reduce((sum, o) => sum + o.retries, 0)} / ${list.reduce((sum, o) => sum + o.rateLimited, 0)}`,
      ok === list.length ? `survived ${ok}/${list.length}` : `FAILED ${list.length - ok}/${list.length}`,
    ]);
  }
  return table.toString();
}

function disturbedSummary(scenario: string, list: ScenarioOutcome[]): string {
  if (scenario !== 'crash')
    return [...new Set(list.flatMap((outcome) => outcome.disturbed.slice(0, 1)))].slice(0, 3).join('; ');
  // Crash rounds: how many kills landed where, across every round.
  const lines = list.flatMap((outcome) => outcome.disturbed);
  const count = (pattern: RegExp) => lines.filter((line) => pattern.test(line)).length;
  return (
    `${lines.length} SIGKILLs: ${count(/^paging.*: paging/)} while paging, ${count(/^in-txn.*: in-txn/)} inside a load transaction, ` +
    `${count(/^after-commit/)} just after a commit, ${count(/^publish: publish/)} while publishing; ${count(/missed|already over/)} missed`
  );
}

process.stdout.write(`\n${summarise()}\n`);
const failed = outcomes.filter((outcome) => !survived(outcome)).length;
process.stdout.write(
  `${outcomes.length} scenario runs in ${((Date.now() - started) / 1000).toFixed(0)} s: ${failed === 0 ? 'all survived' : `${failed} FAILED`} (seed ${seed})\n`,
);
process.exit(failed === 0 ? 0 : 1);
