import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/days.js';
import { queryFile, runBvsync, spawnBvsync } from '../support/engine.js';
import { TEST_REDIS_URL, testRedis } from '../support/redis.js';
import { describeRedisAddress } from '../../src/redis-address.js';
import { tempDir } from '../support/tmp.js';

/** `bvsync demo`, the README's first command, as a user runs it: simulator -> backfill -> DuckDB file -> a tour. */

/** The demo's today (BVSYNC_TODAY): its simulator, run and summary never see the real date. */
const TODAY = '2026-11-20';
const dir = tempDir('demo');
afterAll(() => dir.remove());

describe('bvsync demo', () => {
  it('backfills every stream into a published file, prints its tables and a view, and leaves no Redis keys', async () => {
    const before = await demoPrefixes();
    const out = join(dir.path, 'demo');
    const result = await runBvsync(['demo', '--out', out, '--days', '2', '--brands', '2', '--scale', '20'], {
      ...process.env,
      REDIS_URL: TEST_REDIS_URL,
      BVSYNC_CONFIG: '',
      BVSYNC_TODAY: TODAY,
    });
    expect(result.code, result.stderr).toBe(0);
    // Plain words: what was loaded, its days, and rows per table (a stream's rows had counted every table it fills).
    expect(result.stdout).toMatch(/run backfill-\S+: complete; [\d,]+ requests to the API, everything read in full\n/);
    expect(result.stdout).not.toMatch(/│ stream |incomplete slices/);
    const today = TODAY;
    const yesterday = addDays(TODAY, -1);
    expect(result.stdout).toContain(`loading 2 days (${yesterday} to ${today}) of 2 brands`);
    expect(result.stdout).toContain(
      `Loaded 2 days, ${yesterday} to ${today}, for brands 1, 2. Today (${today}) is still filling`,
    );
    expect(result.stdout).toContain(`Rows per table of ${join(out, 'bvsync.duckdb')}`);
    const shown = Number(/│ conversations\s+│\s+(\d+) │ (\S+ to \S+)\s+│/.exec(result.stdout)?.[1]);
    expect(/│ conversations\s+│\s+\d+ │ (\S+ to \S+)\s+│/.exec(result.stdout)?.[1]).toBe(`${yesterday} to ${today}`);
    expect(result.stdout).toMatch(/│ competitors\s+│\s+\d+ │ \(a list, no days\)\s+│/);
    // The progress lines say the step, so no total jumps when step 2 is planned.
    const progressLines = result.stdout.split('\n').filter((line) => / slices · | planning · /.test(line));
    expect(progressLines.every((line) => / step [12] of 2 /.test(line))).toBe(true);
    expect(result.stdout).toMatch(/own_brand .* top_competitor/);
    const db = join(out, 'bvsync.duckdb');
    expect(existsSync(db)).toBe(true);
    const [conversations] = await queryFile(
      db,
      'SELECT count(*)::INTEGER AS n, count(DISTINCT brand_id)::INTEGER AS brands FROM conversations',
    );
    expect(conversations).toMatchObject({ brands: 2 });
    expect(Number(conversations!.n)).toBeGreaterThan(0);
    expect(shown).toBe(Number(conversations!.n));
    const views = await queryFile(
      db,
      "SELECT count(*)::INTEGER AS n FROM duckdb_views() WHERE view_name LIKE 'v\\_%' ESCAPE '\\'",
    );
    expect(Number(views[0]!.n)).toBeGreaterThanOrEqual(6);
    // Its Redis prefix is random and removed at the end: no prefix is left that was not there before.
    expect([...(await demoPrefixes())].filter((prefix) => !before.has(prefix))).toEqual([]);

    // The next steps name only commands that work here (no DuckDB CLI), and the SQL and report ones run as printed.
    const steps = result.stdout.slice(result.stdout.indexOf('Next steps:'));
    expect(steps).not.toContain('duckdb -readonly');
    const commands = steps
      .split('\n')
      .slice(1)
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter(Boolean);
    expect(commands.map((command) => command.split(' ').slice(0, 3).join(' '))).toEqual([
      'npx bvsync sql',
      'npx bvsync report',
      'npx bvsync dashboard',
    ]);
    for (const command of commands.slice(0, 2)) {
      const words = command
        .match(/"[^"]*"|'[^']*'|\S+/g)!
        .slice(2)
        .map((word) => word.replace(/^(["'])(.*)\1$/, '$2'));
      const ran = await runBvsync(words, {
        ...process.env,
        REDIS_URL: TEST_REDIS_URL,
        BVSYNC_CONFIG: '',
        BVSYNC_TODAY: TODAY,
      });
      expect(ran.code, `${command}\n${ran.stderr}`).toBe(0);
    }
    expect(existsSync(join(out, 'report.html'))).toBe(true);
  }, 180_000);

  it('stops on SIGINT saying the next demo starts afresh, with no error about a file it never published', async () => {
    const out = join(dir.path, 'interrupted');
    // A password the test Redis does not ask for (ioredis goes on, warning): the demo must not print it.
    const withPassword = new URL(TEST_REDIS_URL);
    if (withPassword.password === '') withPassword.password = 'demo-canary';
    const demo = spawnBvsync(['demo', '--out', out, '--days', '14', '--brands', '3', '--scale', '100'], {
      ...process.env,
      REDIS_URL: withPassword.toString(),
      BVSYNC_CONFIG: '',
      BVSYNC_TODAY: TODAY,
    });
    await demo.waitFor(/started run backfill-/, 60_000);
    process.kill(demo.pid, 'SIGINT');
    const result = await demo.done;
    expect(result.code).toBe(1);
    // Its queues went with its prefix: "a worker (or the same command again) finishes them" was not true of the demo.
    expect(result.stdout).toMatch(
      /run backfill-\S+ interrupted; the demo removes its queues as it ends, so `npx bvsync demo` again starts afresh/,
    );
    expect(result.stderr).not.toMatch(/no database at/);
    expect(result.stdout).not.toContain('Next steps:');
    expect(result.stdout).toContain(`Redis ${describeRedisAddress(withPassword.toString())}`);
    expect(`${result.stdout}${result.stderr}`).not.toContain(withPassword.password);
  }, 120_000);
});

async function demoPrefixes(): Promise<Set<string>> {
  const redis = testRedis();
  try {
    const prefixes = new Set<string>();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', 'bvsync-demo-*', 'COUNT', 1000);
      cursor = next;
      for (const key of keys) prefixes.add(key.split(':')[0]!);
    } while (cursor !== '0');
    return prefixes;
  } finally {
    redis.disconnect();
  }
}
