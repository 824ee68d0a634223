import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { connectForCommand, deleteKeysWithPrefix } from '../engine/redis/redis.js';
import { addDays } from '../days.js';
import { startSimulator } from '../simulator/index.js';
import { STREAM_NAMES } from '../streams/stream-names.js';
import { withReadOnly } from '../warehouse/publish/published-database.js';
import { formatResult } from './result-format.js';
import { readRows } from '../warehouse/read-rows.js';
import { quoteIdent, quoteLiteral } from '../warehouse/sql-names.js';
import {
  addCommonOptions,
  commandLogger,
  commandToday,
  integerOption,
  readConfig,
  redisFor,
  type CommonFlags,
} from './context.js';
import { runWithReport } from './run/run-report.js';
import { makeOutFolder } from './read/out-folder.js';
import { redisKeys } from '../redis-keys.js';
import { describeRedisAddress } from '../redis-address.js';
import { isFinishedRunStatus } from '../vocabulary.js';
import { formatCount } from '../format.js';
import { lastPhase } from '../engine/plan/plan.js';
import { parseConfig } from '../configuration.js';
import { descriptionOf } from './commands.js';

interface DemoFlags extends CommonFlags {
  out: string;
  days: number;
  brands: number;
  scale: number;
}

// What the tour shows: each table's rows (exact) and the days they hold, then one analyst view.
const TABLES_SQL = `
SELECT t.table_name AS name, bool_or(c.column_name = 'day') AS "hasDay"
FROM duckdb_tables() t JOIN duckdb_columns() c USING (database_name, schema_name, table_name)
WHERE t.database_name = current_database() AND NOT starts_with(t.table_name, '_')
GROUP BY ALL ORDER BY name`;

/** One row per table: its rows, and for a table of days the first and last it holds. */
function rowsPerTableSql(tables: Array<{ name: string; hasDay: boolean }>): string {
  return `${tables
    .map(({ name, hasDay }) => {
      const days = hasDay
        ? `CASE WHEN count(*) > 0 THEN min("day")::VARCHAR || ' to ' || max("day")::VARCHAR ELSE '' END`
        : `'(a list, no days)'`;
      return `SELECT ${quoteLiteral(name)} AS "table", count(*) AS "rows", ${days} AS "days" FROM ${quoteIdent(name)}`;
    })
    .join('\nUNION ALL ')}\nORDER BY "table"`;
}

// Share of voice over the complete days loaded (v_share_of_voice_daily: today is partial and left out), the brand's
// beside its largest competitor's, as docs/tables.md "The measures" defines it.
const VIEW_SQL = `
WITH totals AS (
  SELECT brand_id, brand_name, any_value(brand_kind) AS kind, sum(mentions) AS mentions,
         sum(sum(mentions)) OVER (PARTITION BY brand_id) AS all_mentions
  FROM v_share_of_voice_daily GROUP BY brand_id, brand_name
), rivals AS (
  SELECT *, row_number() OVER (PARTITION BY brand_id ORDER BY mentions DESC, brand_name) AS place
  FROM totals WHERE kind IN ('tracked competitor', 'suggested competitor')
)
SELECT own.brand_id, own.brand_name AS own_brand, round(100 * own.mentions / own.all_mentions, 1) AS share_of_voice_pct,
       rival.brand_name AS top_competitor, round(100 * rival.mentions / rival.all_mentions, 1) AS competitor_pct
FROM totals own LEFT JOIN rivals rival ON rival.brand_id = own.brand_id AND rival.place = 1
WHERE own.kind = 'own' ORDER BY own.brand_id`;

/**
 * What to try next, with commands that work right after the demo with nothing else installed (no DuckDB CLI): SQL,
 * the analysts' report and the queue dashboard. `out` is the demo's --out as given, so the paths match what was typed.
 */
function demoNextSteps(out: string): string {
  const db = shellWord(join(out, 'bvsync.duckdb'));
  const report = shellWord(join(out, 'report.html'));
  return (
    '\nNext steps:\n' +
    `  npx bvsync sql --db ${db} "SELECT * FROM v_share_of_voice_daily LIMIT 10"   # SQL on the file (read-only)\n` +
    `  npx bvsync report --db ${db} --out ${report}   # charts for analysts, then open the page in a browser\n` +
    '  npx bvsync dashboard   # the job queues in a browser while `bvsync sync` or `bvsync worker` runs\n'
  );
}

// Quoted only when needed, so the usual paths print as typed.
function shellWord(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

export function demoCommand(): Command {
  return addCommonOptions(
    new Command('demo')
      .description(descriptionOf('demo'))
      .option('--out <dir>', 'folder of the demo database', 'bvsync-demo')
      .option('--days <n>', 'days to backfill, ending today', integerOption('--days', 1, 60), 14)
      .option('--brands <n>', 'brands', integerOption('--brands', 1, 20), 3)
      .option('--scale <n>', 'answers per brand per day', integerOption('--scale', 1, 100_000), 100),
  ).action(async (flags: DemoFlags) => {
    const log = commandLogger({ logLevel: flags.logLevel ?? 'warn' });
    const base = readConfig(flags);
    const today = commandToday();
    const sim = await startSimulator({
      seed: 1,
      brands: flags.brands,
      days: Math.max(30, flags.days),
      scale: flags.scale,
      today,
    });
    const redis = await redisFor(base, log, { allowPrivate: true }).catch(async (error: unknown) => {
      await sim.close();
      throw error;
    });
    // A prefix of its own, removed afterwards: the demo leaves nothing behind in a Redis it shares.
    const prefix = `bvsync-demo-${randomUUID().slice(0, 8)}`;
    // Everything after the simulator and Redis runs inside the try: a refused --out left both open, and the command hung.
    try {
      const out = resolve(flags.out);
      makeOutFolder(out, `the demo's folder ${out}`);
      const db = join(out, 'bvsync.duckdb');
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
        redisPrefix: prefix,
        sync: { swotStatementIds, phrases: sim.truth.world(1).phrases.slice(0, 2) },
      });
      const from = addDays(today, -(flags.days - 1));
      process.stdout.write(
        `bvsync demo: simulator at ${sim.url} (brands ${sim.brands.join(', ')}), Redis ${redis.origin === 'private' ? 'started privately' : describeRedisAddress(redis.url)}\n` +
          `loading ${flags.days} days (${from} to ${today}) of ${sim.brands.length} brands, every stream, into ${db}\n` +
          `It reads the API in ${lastPhase(config.sync)} steps: first the daily figures and the lists (topics, competitors, tracked pages),\n` +
          'then the domains and pages those name. The progress line counts the requests ("slices") of the step in progress.\n\n',
      );
      const { exitCode, progress } = await runWithReport(
        {
          config,
          redisUrl: redis.url,
          log,
          kind: 'backfill',
          brands: sim.brands,
          streams: [...STREAM_NAMES],
          today,
          from,
          to: today,
          // The simulator's today is the workers' too, should the real day end during the demo.
          worker: { today: () => today },
        },
        {
          plain: true,
          // Its queues go with its Redis prefix, removed below: nothing of it is left for a worker to finish.
          interrupted: (runId) =>
            `run ${runId} interrupted; the demo removes its queues as it ends, so \`npx bvsync demo\` again starts afresh`,
        },
      );
      process.exitCode = exitCode;
      // Interrupted before its first publish, there is no file to show, and an error saying so helped nobody.
      if (!isFinishedRunStatus(progress.meta.status)) return;
      await withReadOnly(db, async (published) => {
        const tables = (await readRows(published.connection, TABLES_SQL)) as Array<{ name: string; hasDay: boolean }>;
        process.stdout.write(
          `\nLoaded ${formatCount(flags.days, 'day')}, ${from} to ${today}, for brands ${sim.brands.join(', ')}. ` +
            `Today (${today}) is still filling: the report leaves it out.\n` +
            `Rows per table of ${db}\n${formatResult(await published.connection.runAndReadAll(rowsPerTableSql(tables)), 'table')}`,
        );
        const shares = await published.connection.runAndReadAll(VIEW_SQL);
        process.stdout.write(
          shares.currentRowCount === 0
            ? `\nNo complete day yet: share of voice counts days that are over, and today (${today}) is still filling.\n`
            : `\nEach brand's share of voice over the complete days, ${from} to the day before ${today} (its mentions in the answers ` +
                `of every brand's), beside its largest competitor's\n${formatResult(shares, 'table')}`,
        );
      });
      process.stdout.write(demoNextSteps(flags.out));
    } finally {
      await sim.close();
      // Bounded: after a Redis lost mid-demo, the cleanup fails in 10 s and the demo's own error is said.
      const connection = connectForCommand(redis.url);
      await deleteKeysWithPrefix(connection, redisKeys(prefix).all).catch(() => {});
      connection.disconnect();
      await redis.stop();
    }
  });
}
