import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The testing rule of docs/architecture.md, "Tests": a test gives the code its today and waits for events. It never
 * reads the real date, sleeps for a time, or bounds the wall time a step took; each passes on a quiet box and fails on
 * a busy one, or fails the night the real date moves. Uses that remain are counted per file below, with why: a new
 * one fails here, and one removed asks for its count to be lowered.
 */

const RULES = {
  /** The real UTC day: give the code a today instead (BVSYNC_TODAY, a `today` option) and use a fixed day. */
  today:
    /todayUtc\(\)|new Date\(\)\.toISOString\(\)\.slice\(0, ?10\)|new Date\(Date\.now\(\)[^;]*?\.toISOString\(\)\.slice\(0, ?10\)/g,
  /** A sleep or a hand-made poll: wait for the event with `until` (test/support/until.ts) or a process's `waitFor`. */
  sleep: /setTimeout\(\s*resolve\b|\bsleep\([^)]/g,
  /** An upper bound on elapsed wall time: assert counts or the order of events instead. */
  bound: /expect\(\s*(?:Date|performance)\.now\(\)\s*-[^;]*?\)\.toBeLessThan/g,
};
type Rule = keyof typeof RULES;

const POLL = 'a poll for an event, by hand';
/** Uses that remain, per file and rule, and why. */
const ALLOWED: Record<string, { uses: Partial<Record<Rule, number>>; why: string }> = {
  'test/support/until.ts': { uses: { sleep: 1 }, why: 'the poll every wait uses' },
  'test/support/prism.ts': {
    uses: { sleep: 2 },
    why: 'a bounded wait for a child to exit, and a retry delay of a start',
  },
  'test/reliability/scenarios.ts': {
    uses: { sleep: 7 },
    why: 'chaos scenarios: outages and kills at moments in time, by design',
  },
  'test/e2e/backfill-skip-complete.int.test.ts': {
    uses: { today: 2 },
    why: 'a slice read while its day was today: the warehouse stamps completed_at by the real clock',
  },
  'test/warehouse/bookkeeping.int.test.ts': {
    uses: { today: 2 },
    why: 'a list read today and a day read while today: the warehouse stamps the real clock',
  },
  'test/warehouse/views.int.test.ts': {
    uses: { today: 1 },
    why: "the views leave out today's partial day by DuckDB's now()",
  },
  'test/warehouse/loader.int.test.ts': {
    uses: { bound: 1 },
    why: '_synced_at is the real time of the load (a stamp, not a duration)',
  },
  'test/api/adaptive-budget.int.test.ts': { uses: { sleep: 2 }, why: 'the rate budget counts real seconds' },
  'test/api/rate-budget.int.test.ts': { uses: { sleep: 1 }, why: 'the rate budget counts real seconds' },
  'test/api/client.test.ts': { uses: { sleep: 1 }, why: 'a slow acquire of the budget, which the call must outlast' },
  'test/engine/private-redis.int.test.ts': {
    uses: { sleep: 3 },
    why: 'a quiet spell in which the server must stay up (nothing to wait for)',
  },
  'test/engine/writer-lease.int.test.ts': { uses: { sleep: 5 }, why: 'the lease expires by its ttl in real time' },
  'test/engine/worker-host-stop.int.test.ts': { uses: { sleep: 1 }, why: "a load that outlasts the worker's close" },
  'test/engine/outage-give-up.int.test.ts': { uses: { sleep: 1 }, why: POLL },
  'test/simulator/cli.int.test.ts': { uses: { sleep: 1, bound: 1 }, why: 'the simulator stops inside its latency' },
  'test/warehouse/crash.int.test.ts': {
    uses: { sleep: 1 },
    why: `${POLL}: the publish's temp file, to kill it mid-copy`,
  },
  'test/engine/fetch-failures.int.test.ts': { uses: { sleep: 1 }, why: POLL },
  'test/e2e/notify.int.test.ts': {
    uses: { bound: 1 },
    why: 'a command that must not wait on a silent webhook past notify.deliverySeconds',
  },
  'test/e2e/operator-mistakes.int.test.ts': { uses: { bound: 1 }, why: 'a command that must not wait for ever' },
  'test/engine/redis-outage.int.test.ts': { uses: { bound: 1 }, why: 'a command that must not wait for ever' },
  'test/reliability/redis.int.test.ts': { uses: { bound: 2 }, why: 'a worker that must not wait for ever' },
};

function testFiles(): string[] {
  return readdirSync('test', { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('clock-free.test.ts'))
    .map((file) => join('test', file).split('\\').join('/'))
    .sort();
}

function usesOf(text: string): Partial<Record<Rule, number>> {
  const uses: Partial<Record<Rule, number>> = {};
  for (const [rule, pattern] of Object.entries(RULES) as Array<[Rule, RegExp]>) {
    const count = text.match(pattern)?.length ?? 0;
    if (count) uses[rule] = count;
  }
  return uses;
}

describe('tests free of the real clock', () => {
  it('reads no real date, sleeps for no time and bounds no wall time, but for the uses counted here', () => {
    const found: Record<string, Partial<Record<Rule, number>>> = {};
    for (const file of testFiles()) {
      const uses = usesOf(readFileSync(file, 'utf8'));
      if (Object.keys(uses).length) found[file] = uses;
    }
    const problems: string[] = [];
    for (const file of new Set([...Object.keys(found), ...Object.keys(ALLOWED)])) {
      for (const rule of Object.keys(RULES) as Rule[]) {
        const has = found[file]?.[rule] ?? 0;
        const allowed = ALLOWED[file]?.uses[rule] ?? 0;
        if (has > allowed)
          problems.push(
            `${file}: ${has} ${rule} use(s), ${allowed} allowed; see RULES in test/clock-free.test.ts for what to do instead`,
          );
        if (has < allowed)
          problems.push(
            `${file}: ${has} ${rule} use(s), ${allowed} counted; lower its count in test/clock-free.test.ts`,
          );
      }
    }
    expect(problems).toEqual([]);
  });

  it('catches each kind it names', () => {
    expect(usesOf('const day = todayUtc();')).toEqual({ today: 1 });
    expect(usesOf('const day = new Date().toISOString().slice(0, 10);')).toEqual({ today: 1 });
    expect(usesOf('await new Promise((resolve) => setTimeout(resolve, 3_000));')).toEqual({ sleep: 1 });
    expect(usesOf('expect(Date.now() - started).toBeLessThan(5_000);')).toEqual({ bound: 1 });
    expect(
      usesOf(
        "const day = todayUtc(new Date('2026-11-20T12:00:00Z')); expect(Date.now() - started).toBeGreaterThanOrEqual(900);",
      ),
    ).toEqual({});
  });
});
