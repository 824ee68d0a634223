import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToEnd } from '../../src/engine/run/start-run.js';
import { cliEnv, engineFixture, runBvsync, writeCliConfig, type EngineFixture } from '../support/engine.js';

/**
 * An incremental sync reads the days after a stream's cursor and the lookback. A domain added to `sync.domains`, or a
 * `sync.startDate` moved earlier, leaves days before the cursor that no run ever reads, each run complete. The sync
 * names them with the `backfill --skip-complete` that reads only those, and is quiet once it ran.
 */

const TODAY = '2026-11-20';
const api = { requestsPerSecond: 1000, retryBaseMs: 5, retryMaxMs: 50 };
let fx: EngineFixture;

beforeAll(async () => {
  fx = await engineFixture('unread-days', { sim: { brands: 1, today: TODAY } });
});
afterAll(async () => fx?.cleanup());

const run = (args: string[], config: string, streams: string) =>
  runBvsync([...args, '--streams', streams, '--today', TODAY, '--config', config], cliEnv(fx));
/** The advised command of a warning, as words to run. */
function advisedBackfill(stderr: string): string[] {
  const found = /bvsync (backfill [^;\n"]*--skip-complete)/.exec(stderr);
  expect(found, stderr).not.toBeNull();
  return found![1]!.split(' ');
}

describe('a sync after sync.startDate moved earlier', () => {
  it('names the days before the cursor never read, and is quiet once the advised backfill read them', async () => {
    const late = writeCliConfig(fx, { api, sync: { startDate: '2026-11-15' } });
    expect((await run(['sync'], late, 'tracked_urls')).code).toBe(0);
    const again = await run(['sync'], late, 'tracked_urls');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/never read/);

    const earlier = writeCliConfig(fx, { api, sync: { startDate: '2026-11-12' } });
    const sync = await run(['sync'], earlier, 'tracked_urls');
    expect(sync.code, sync.stderr).toBe(0);
    // The lookback reads 2026-11-18 on; 2026-11-15..17 were read by the first sync.
    expect(sync.stderr).toContain(
      'tracked_urls for brand 1: 3 of its 6 day(s) from 2026-11-12 to 2026-11-17 were never read, and this sync reads only the days after its cursor and the lookback ' +
        '(a domain added since, or sync.startDate moved earlier); bvsync backfill --streams tracked_urls --from 2026-11-12 --to 2026-11-17 --skip-complete reads only those',
    );
    const before = fx.sim.requestLog().length;
    const backfill = await runBvsync(
      [...advisedBackfill(sync.stderr), '--today', TODAY, '--config', earlier],
      cliEnv(fx),
    );
    expect(backfill.code, backfill.stderr).toBe(0);
    const days = fx.sim
      .requestLog()
      .slice(before)
      .filter((entry) => entry.path.endsWith('/tracked-urls'))
      .map((entry) => entry.query.start_date);
    expect([...new Set(days)].sort()).toEqual(['2026-11-12', '2026-11-13', '2026-11-14']);
    const quiet = await run(['sync'], earlier, 'tracked_urls');
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toMatch(/never read/);
  }, 240_000);
});

describe('a sync after a domain was added to sync.domains', () => {
  it('names the domain whose days before the cursor were never read, and the backfill reads only its days', async () => {
    const one = writeCliConfig(fx, { api, sync: { startDate: '2026-11-15', domains: ['first.example'] } });
    expect((await run(['sync'], one, 'domain_details')).code).toBe(0);
    const two = writeCliConfig(fx, {
      api,
      sync: { startDate: '2026-11-15', domains: ['first.example', 'second.example'] },
    });
    const sync = await run(['sync'], two, 'domain_details');
    expect(sync.code, sync.stderr).toBe(0);
    // Its series: the two domains, and those of the tracked URLs the test above loaded.
    expect(sync.stderr).toMatch(
      /domain_details for brand 1: 3 day slice\(s\) from 2026-11-15 to 2026-11-17, of 1 of its \d+ series \(second\.example\), were never read/,
    );
    expect(sync.stderr).toContain(
      'bvsync backfill --streams domain_details --from 2026-11-15 --to 2026-11-17 --skip-complete reads only those',
    );
    const before = fx.sim.requestLog().length;
    const backfill = await runBvsync([...advisedBackfill(sync.stderr), '--today', TODAY, '--config', two], cliEnv(fx));
    expect(backfill.code, backfill.stderr).toBe(0);
    const read = fx.sim
      .requestLog()
      .slice(before)
      .filter((entry) => entry.path.includes('/citations/domains/'));
    expect(read.map((entry) => entry.path.split('/').at(-1)).every((domain) => domain === 'second.example')).toBe(true);
    expect(new Set(read.map((entry) => entry.query.start_date)).size).toBe(3);
    const quiet = await run(['sync'], two, 'domain_details');
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toMatch(/never read/);
  }, 240_000);
});

describe('a sync after sync.conversationsByTopic was turned on', () => {
  it('names no day of the topics: a topic has no days before the API had it, which bvsync cannot tell from one it learned late', async () => {
    const plain = writeCliConfig(fx, { api, sync: { startDate: '2026-11-15' } });
    expect((await run(['sync'], plain, 'visibility,conversations')).code).toBe(0);
    const byTopic = writeCliConfig(fx, { api, sync: { startDate: '2026-11-15', conversationsByTopic: true } });
    const sync = await run(['sync'], byTopic, 'visibility,conversations');
    expect(sync.code, sync.stderr).toBe(0);
    // Its topics' slices are planned from the lookback on, and none of them has an earlier day.
    const planned = fx.sim
      .requestLog()
      .filter((entry) => entry.path.endsWith('/conversations') && entry.query.topic_id !== undefined);
    expect(planned.length).toBeGreaterThan(0);
    expect(sync.stderr).not.toMatch(/conversations for brand 1: .* never read/);
  }, 240_000);
});

describe('a sync after sync.startDate moved earlier over days a backfill read and failed', () => {
  it('names no day that was read: a failed day is what status lists, and would be named by every sync for good', async () => {
    // The days before 2026-11-12 read, and failed (a key the API refuses): read, not never read.
    const refused = await runToEnd({
      config: { ...fx.config, api: { ...fx.config.api, ...api, apiKey: 'bvk_not_the_right_key' } },
      redisUrl: fx.redisUrl,
      log: fx.log,
      kind: 'backfill',
      from: '2026-11-08',
      to: '2026-11-11',
      brands: fx.config.brands,
      streams: ['tracked_urls'],
      today: TODAY,
      worker: { leaseTtlMs: 2_000 },
    });
    expect(refused.meta.status).toBe('failed');
    const earliest = writeCliConfig(fx, { api, sync: { startDate: '2026-11-08' } });
    const sync = await run(['sync'], earliest, 'tracked_urls');
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stderr).not.toMatch(/tracked_urls for brand 1: .* never read/);
    const status = await runBvsync(['status', '--config', earliest], cliEnv(fx));
    expect(status.stdout).toContain('--from 2026-11-08 --to 2026-11-11');
  }, 240_000);
});
