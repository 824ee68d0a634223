/**
 * Small slices: the demo's run (`bvsync demo`: 3 brands, 14 days, every stream, the simulator in the same process,
 * ~900 slices of a few rows each) twice in this process, against a fresh simulator, Redis prefix and file each time:
 * first with every slice committed in a transaction of its own (`commitBatchSlices: 1`, how bvsync committed before
 * slices waiting together shared one), then as bvsync runs by default. The two files must hold the same tables, row
 * for row (the columns saying when and by which run a row was written aside). Target: the default >= 2 x faster.
 * Run alone: `npm run bench -- small-slices`.
 */
import { join } from 'node:path';
import { addDays } from '../src/days.js';
import { runToEnd } from '../src/engine/run/start-run.js';
import { createLogger } from '../src/log.js';
import { startSimulator } from '../src/simulator/index.js';
import { STREAM_NAMES } from '../src/streams/stream-names.js';
import { openReadOnly } from '../src/warehouse/publish/published-database.js';
import { readRows } from '../src/warehouse/read-rows.js';
import { deletePrefix, testRedis, uniquePrefix } from '../test/support/redis.js';
import { tempDir } from '../test/support/tmp.js';
import { REDIS_URL, TODAY } from './harness.js';
import type { BenchResult } from './run.js';
import { parseConfig } from '../src/configuration.js';

/** The demo's defaults (src/cli/demo.ts). */
const DAYS = 14;
const BRANDS = 3;
const SCALE = 100;

interface DemoRun {
  seconds: number;
  /** CPU time of this process during the run (every thread: the run's, the simulator's, DuckDB's). */
  cpuSeconds: number;
  slices: number;
  status: string;
  /** Per data table: its row count and a hash of its content. */
  tables: Record<string, string>;
}

export async function demoRun(commitBatchSlices: number | undefined): Promise<DemoRun> {
  const sim = await startSimulator({ seed: 1, brands: BRANDS, days: 30, scale: SCALE, today: TODAY });
  const tmp = tempDir('bench-small-slices');
  const redisPrefix = uniquePrefix('bench-small-slices');
  const db = join(tmp.path, 'bvsync.duckdb');
  try {
    const swotStatementIds = Object.fromEntries(
      sim.brands.map((brand) => [
        String(brand),
        sim.truth
          .world(brand)
          .swotStatements.slice(0, 2)
          .map((s) => s.id),
      ]),
    );
    const config = parseConfig({
      api: { url: sim.url, apiKey: sim.apiKey, requestsPerSecond: 200 },
      brands: sim.brands,
      db,
      redisPrefix,
      sync: { swotStatementIds, phrases: sim.truth.world(1).phrases.slice(0, 2) },
    });
    const started = performance.now();
    const cpu = process.cpuUsage();
    const progress = await runToEnd({
      config,
      redisUrl: REDIS_URL,
      log: createLogger({ pretty: false, level: process.env.BVSYNC_BENCH_LOG ?? 'warn' }),
      kind: 'backfill',
      brands: sim.brands,
      streams: [...STREAM_NAMES],
      today: TODAY,
      from: addDays(TODAY, -(DAYS - 1)),
      to: TODAY,
      worker: commitBatchSlices === undefined ? {} : { commitBatchSlices },
    });
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    return {
      seconds,
      cpuSeconds: (used.user + used.system) / 1e6,
      slices: progress.planned,
      status: progress.meta.status,
      tables: await tableDigests(db),
    };
  } finally {
    await sim.close();
    const redis = testRedis();
    await deletePrefix(redis, redisPrefix);
    redis.disconnect();
    tmp.remove();
  }
}

/** Each data table's rows and content hash, leaving out the columns that differ between two runs of the same data. */
async function tableDigests(path: string): Promise<Record<string, string>> {
  const db = await openReadOnly(path);
  try {
    const tables = await readRows(
      db.connection,
      `SELECT table_name AS name FROM duckdb_tables() WHERE database_name = current_database() AND NOT starts_with(table_name, '_') ORDER BY 1`,
    );
    const digests: Record<string, string> = {};
    for (const { name } of tables) {
      const [row] = await readRows(
        db.connection,
        `SELECT count(*)::BIGINT AS n, coalesce(sum(hash(COLUMNS(c -> c NOT IN ('_synced_at', '_run_id'))))::VARCHAR, '') AS h FROM "${String(name)}"`,
      );
      digests[String(name)] = `${row?.n}:${row?.h}`;
    }
    return digests;
  } finally {
    db.close();
  }
}

export async function run(): Promise<BenchResult[]> {
  const alone = await demoRun(1);
  const together = await demoRun(undefined);
  const differing = Object.keys({ ...alone.tables, ...together.tables }).filter(
    (table) => alone.tables[table] !== together.tables[table],
  );
  const same = differing.length === 0 && together.status === alone.status;
  const speedup = alone.seconds / together.seconds;
  return [
    {
      scenario: 'small-slices',
      metric: `the demo's run (${BRANDS} brands x ${DAYS} days, every stream), each slice its own transaction`,
      value: alone.seconds,
      unit: 's',
      note: `${alone.slices} slices, run ${alone.status}, ${alone.cpuSeconds.toFixed(1)} s of CPU`,
    },
    {
      scenario: 'small-slices',
      metric: "the demo's run, slices waiting together committed in one transaction (default)",
      value: speedup,
      unit: 'x faster',
      target: '>= 2 x faster, same tables',
      met: speedup >= 2 && same,
      note: `${together.seconds.toFixed(1)} s, ${together.cpuSeconds.toFixed(1)} s of CPU, ${together.slices} slices, run ${together.status}; ${same ? `same ${Object.keys(together.tables).length} tables` : `tables differ: ${differing.join(', ') || 'none, but the run status does'}`}`,
    },
  ];
}
