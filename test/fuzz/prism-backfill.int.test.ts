import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToEnd } from '../../src/engine/run/start-run.js';
import { createLogger } from '../../src/log.js';
import { STREAM_NAMES } from '../../src/streams/stream-names.js';
import { ECHOED_ENGINES_SQL } from '../../src/warehouse/provenance.js';
import { openReadOnly, type ReadOnlyDatabase } from '../../src/warehouse/publish/published-database.js';
import { readRows } from '../../src/warehouse/read-rows.js';
import { queryFile, spawnBvsync } from '../support/engine.js';
import { startPrism, type RunningPrism } from '../support/prism.js';
import { deletePrefix, testRedis, TEST_REDIS_URL, uniquePrefix } from '../support/redis.js';
import { tempDir } from '../support/tmp.js';
import { parseConfig, type Config } from '../../src/configuration.js';

/**
 * An API bvsync has never seen: Prism's dynamic mock of docs/openapi.yaml answers every request with random data
 * that fits the document — dates of any year, ids and counts of any size, `info.page` and `total_rows` that have
 * nothing to do with the request, unknown fields everywhere. A backfill of every stream against it must still end:
 * a published file that opens, the records that could be trusted loaded, the rest in `_rejected_records` with
 * reasons, the run in `_sync_runs` with a finished status. Each seed is a different API: every request gets Prism's
 * per-request seed from it, its method and URL (test/support/prism.ts), so a failing seed replays exactly.
 */

/**
 * Two seeds run in this process, as the other end-to-end tests do; one runs `bvsync backfill` as a user would. Prism's
 * random `info.page` makes bvsync refuse every paged answer (rightly: it is how a wrong page parameter shows), so one
 * run has the paging echo set to what was asked and its random records reach the loader (see `echoPaging`).
 */
const RUNS: Array<{ seed: string; how: 'in-process' | 'command'; paging: 'random' | 'echoed' }> = [
  { seed: 'bvsync-fuzz-1', how: 'in-process', paging: 'random' },
  { seed: 'bvsync-fuzz-2', how: 'in-process', paging: 'echoed' },
  { seed: 'bvsync-fuzz-3', how: 'command', paging: 'random' },
];
const TODAY = '2026-11-20';
const FROM = '2026-11-18';
const TO = '2026-11-19';
/** No run may take longer; past it the test fails as a hang. */
const RUN_DEADLINE_MS = 90_000;

const DATA_TABLES_SQL = `SELECT table_name FROM duckdb_tables() WHERE NOT starts_with(table_name, '_') ORDER BY 1`;

/** What the run came to, however it was started. */
interface Outcome {
  status: string | undefined;
  runId: string | undefined;
  published: string | null | undefined;
  planned: number | undefined;
  done: number | undefined;
  /** Why it did not finish: a throw, a hang, a crash of the command. */
  problem: string | undefined;
}

describe.each(RUNS)(
  'a backfill of every stream against Prism, seed $seed, $how, paging echo $paging',
  ({ seed, how, paging }) => {
    let prism: RunningPrism;
    let config: Config;
    let dir: ReturnType<typeof tempDir>;
    let outcome: Outcome;
    let elapsedMs = 0;
    let db: ReadOnlyDatabase | undefined;
    const sql = (text: string, params: Array<string | number> = []) => readRows(db!.connection, text, params);
    const scalar = async (text: string, params: Array<string | number> = []) =>
      Number(Object.values((await sql(text, params))[0] ?? {})[0] ?? 0);

    beforeAll(async () => {
      prism = await startPrism({ seed, echoPaging: paging === 'echoed' });
      dir = tempDir(`fuzz-${seed}`);
      const settings = {
        api: { requestsPerSecond: 1000, retryBaseMs: 5, retryMaxMs: 50, maxAttempts: 3 },
        redisPrefix: uniquePrefix(`fuzz-${seed}`),
        // Every stream gets slices: domains for the domain streams (Prism's tracked URLs and competitors have no real
        // addresses), phrases and SWOT statements for the two config-driven streams.
        sync: {
          domains: ['example.com', 'example.org'],
          phrases: ['running shoes'],
          swotStatementIds: { '1': [11], '2': [21] },
          fetchConcurrency: 8,
        },
      };
      config = parseConfig({
        ...settings,
        api: { ...settings.api, url: prism.url, apiKey: prism.apiKey },
        brands: [1, 2],
        db: join(dir.path, 'bv.duckdb'),
      });
      const started = performance.now();
      outcome = how === 'in-process' ? await runInThisProcess(config) : await runCommand(config, settings, dir.path);
      elapsedMs = performance.now() - started;
      if (existsSync(config.db)) db = await openReadOnly(config.db);
    }, RUN_DEADLINE_MS + 90_000);

    afterAll(async () => {
      db?.close();
      await prism?.stop();
      if (config) {
        const redis = testRedis();
        await deletePrefix(redis, config.redisPrefix);
        redis.disconnect();
      }
      dir?.remove();
    });

    it('finishes within the deadline, without a crash, and publishes a file that opens', () => {
      expect(
        outcome.problem,
        `${outcome.problem}\n(after ${Math.round(elapsedMs)} ms; Prism said:\n${prism.output().slice(-2000)})`,
      ).toBeUndefined();
      expect(outcome.status).toMatch(/^(complete|incomplete)$/);
      expect(outcome.done).toBe(outcome.planned);
      expect(outcome.published).toBe(config.db);
      expect(db, 'the published file opens').toBeDefined();
    });

    it("sends only requests the document allows: Prism's request validation found no violation", () => {
      // Prism logs each request that breaks docs/openapi.yaml (a parameter name, type, range or enum) as a violation.
      expect(
        prism
          .output()
          .split('\n')
          .filter((line) => /violation|did not pass/i.test(line)),
      ).toEqual([]);
    });

    it('records the run in _sync_runs with a finished status', async () => {
      const [run] = await sql(
        `SELECT status, kind, finished_at IS NOT NULL AS finished, slices, rejects FROM _sync_runs WHERE run_id = $1`,
        [outcome.runId!],
      );
      expect(run).toMatchObject({ kind: 'backfill', finished: true });
      expect(['complete', 'incomplete']).toContain(run!.status);
      expect(run!.slices).toBe(outcome.planned);
    });

    it('plans and settles every stream of both brands, and names the reason of every slice it could not trust', async () => {
      const streams = await sql(
        'SELECT brand_id, count(DISTINCT stream)::INTEGER AS n FROM _sync_state GROUP BY ALL ORDER BY ALL',
      );
      // A stream that fans out over a dimension plans nothing for a brand that has none of it: Prism's random answers
      // may name no engine in the visibility echo, and load no tracked page when their paging is refused.
      const expected = [];
      const echoed = new Set((await sql(ECHOED_ENGINES_SQL, ['visibility'])).map((row) => Number(row.brand_id)));
      for (const brandId of config.brands) {
        const engines = echoed.has(brandId);
        const pages = (await sql('SELECT 1 FROM tracked_urls WHERE brand_id = $1 LIMIT 1', [brandId])).length > 0;
        const planless = [
          ...(engines ? [] : ['visibility_by_engine', 'product_ranking_by_engine']),
          ...(pages ? [] : ['cited_page_fanouts']),
        ];
        expected.push({ brand_id: brandId, n: STREAM_NAMES.length - planless.length });
      }
      expect(streams).toEqual(expected);
      const unexplained = await sql(
        `SELECT stream, slice_key, status FROM _sync_state WHERE status <> 'complete' AND coalesce(last_error, '') = ''`,
      );
      expect(unexplained).toEqual([]);
    });

    it.runIf(paging === 'echoed')(
      'with the paging echo, the random records of the paged streams reach the loader',
      async () => {
        const paged = [
          'tracked_urls',
          'conversations',
          'templates',
          'articles',
          'fanouts_cited',
          'fanouts_by_phrase',
          'product_ranking',
          'swot',
        ];
        const names = paged.map((name) => `'${name}'`).join(', ');
        const reached = await sql(
          `SELECT stream FROM _sync_state WHERE stream IN (${names}) GROUP BY stream HAVING sum("rows") > 0
       UNION SELECT stream FROM _rejected_records WHERE stream IN (${names})`,
        );
        expect(reached.length).toBeGreaterThanOrEqual(paged.length / 2);
        // Nothing of a page that answers what was asked is refused whole: no paged slice fails.
        expect(await sql(`SELECT stream, slice_key, last_error FROM _sync_state WHERE status = 'failed'`)).toEqual([]);
      },
    );

    it('loads records, and quarantines the rest in _rejected_records with reasons', async () => {
      let loaded = 0;
      for (const { table_name: table } of await sql(DATA_TABLES_SQL))
        loaded += await scalar(`SELECT count(*) FROM "${String(table)}"`);
      // What each stream's slices came to, to read a failure by.
      const slices = await sql(
        `SELECT stream, status, count(*)::INTEGER AS slices, sum("rows")::INTEGER AS "rows", any_value(last_error) AS example
       FROM _sync_state GROUP BY ALL ORDER BY ALL`,
      );
      const summary = JSON.stringify(slices, null, 1);
      expect(loaded, summary).toBeGreaterThan(0);
      expect(await scalar('SELECT count(*) FROM _rejected_records'), summary).toBeGreaterThan(0);
      expect(await scalar('SELECT count(*) FROM _rejected_records WHERE issues IS NULL OR len(issues) = 0')).toBe(0);
    });
  },
);

function runInThisProcess(config: Config): Promise<Outcome> {
  return runToEnd({
    config,
    redisUrl: TEST_REDIS_URL,
    log: createLogger({ level: process.env.BVSYNC_TEST_LOG ?? 'silent', pretty: false }),
    kind: 'backfill',
    brands: config.brands,
    streams: [...STREAM_NAMES],
    today: TODAY,
    from: FROM,
    to: TO,
    worker: { leaseTtlMs: 2_000 },
    signal: AbortSignal.timeout(RUN_DEADLINE_MS),
  }).then(
    (progress) => ({
      status: progress.meta.status,
      runId: progress.meta.runId,
      published: progress.meta.published,
      planned: progress.planned,
      done: progress.done,
      problem:
        progress.meta.error ??
        (['complete', 'incomplete', 'failed'].includes(progress.meta.status)
          ? undefined
          : `the run is still ${progress.meta.status} at the deadline`),
    }),
    (error: unknown) => ({
      status: undefined,
      runId: undefined,
      published: undefined,
      planned: undefined,
      done: undefined,
      problem: `the run threw: ${String(error)}`,
    }),
  );
}

/**
 * `bvsync backfill` in its own process, configured as an operator would: settings in a file, the API, brands and
 * database in the environment. It may exit 1 (a slice failed), but must exit by itself, print its verdict, and
 * leave no stack trace.
 */
async function runCommand(config: Config, settings: Record<string, unknown>, dir: string): Promise<Outcome> {
  const file = join(dir, 'bvsync.config.json');
  writeFileSync(file, JSON.stringify(settings, null, 2));
  const child = spawnBvsync(
    ['backfill', '--from', FROM, '--to', TO, '--today', TODAY, '--streams', STREAM_NAMES.join(','), '--config', file],
    {
      ...process.env,
      BVSYNC_API_URL: config.api.url,
      BVSYNC_API_KEY: config.api.apiKey,
      BVSYNC_BRANDS: config.brands.join(','),
      BVSYNC_DB: config.db,
      REDIS_URL: TEST_REDIS_URL,
      BVSYNC_CONFIG: '',
      BVSYNC_LEASE_TTL_MS: '2000',
    },
  );
  const deadline = setTimeout(() => child.kill('SIGKILL'), RUN_DEADLINE_MS);
  const result = await child.done;
  clearTimeout(deadline);
  const verdict = /run (\S+): (complete|incomplete|failed); .*?(?:; published (\S+))?$/m.exec(result.stdout);
  const output = `exit ${result.code ?? result.signal}\n${result.stdout.slice(-1500)}\n${result.stderr.slice(-1500)}`;
  let problem: string | undefined;
  if (result.signal)
    problem = `the command was killed (${result.signal}): it did not finish within ${RUN_DEADLINE_MS} ms\n${output}`;
  else if (result.code !== 0 && result.code !== 1) problem = `the command crashed\n${output}`;
  else if (!verdict) problem = `the command printed no verdict\n${output}`;
  else if (/\n\s+at .+:\d+:\d+\)?\n/.test(result.stderr)) problem = `the command printed a stack trace\n${output}`;
  else if (/bvsync: run \S+ failed: /.test(result.stderr)) problem = result.stderr.slice(-1500);
  const [runRow] =
    verdict && existsSync(config.db)
      ? await queryFile(config.db, 'SELECT slices FROM _sync_runs WHERE run_id = $1', [verdict[1]!])
      : [];
  const slices = runRow ? Number(runRow.slices) : undefined;
  return { status: verdict?.[2], runId: verdict?.[1], published: verdict?.[3], planned: slices, done: slices, problem };
}
