import { Command } from 'commander';
import { requireApiSettings } from '../../config/api-settings.js';
import { createApiClient, configuredRateBudget } from '../../api/index.js';
import { AuthError, BrandAccessDeniedError } from '../../api/errors.js';
import { parseBrandList } from '../../config/load.js';
import { addDays, maxDay, parseDay } from '../../days.js';
import { CallBudget } from '../../verify/call-budget.js';
import type { DayWindow } from '../../verify/figure.js';
import { renderVerify } from '../../verify/render-verify.js';
import { verifyWarehouse } from '../../verify/verify-warehouse.js';
import { newestCompletePastDays, type NewestCompleteDay } from '../../warehouse/state/bookkeeping.js';
import { withReadOnly } from '../../warehouse/publish/published-database.js';
import { rowReader } from '../../warehouse/read-rows.js';
import {
  addCommonOptions,
  collect,
  commandLogger,
  commandToday,
  readConfig,
  withRedis,
  type CommonFlags,
} from '../context.js';
import { EXIT_NOT_DONE } from '../exit-codes.js';
import { checkReachable } from '../preflight.js';
import { UsageError } from '../fail.js';
import { answerWithRequest, refusedKeyMessage } from '../brand-access-probe.js';
import { descriptionOf } from '../commands.js';
import { databasePath } from './sql.js';

interface VerifyFlags extends CommonFlags {
  from?: string;
  to?: string;
  brand?: string[];
  db?: string;
  working?: boolean;
  maxCalls: string;
  all?: boolean;
  json?: boolean;
}

/** Days a window covers when --from is not given: a week, ending on --to. */
const DEFAULT_WINDOW_DAYS = 7;
/** Requests spent narrowing disagreements down to days when --max-calls is not given: 2k·log2(n) names k days of n. */
const DEFAULT_NARROWING_CALLS = 100;

export function verifyCommand(): Command {
  return addCommonOptions(
    new Command('verify')
      .description(descriptionOf('verify'))
      .option('--from <YYYY-MM-DD>', `first day (default: ${DEFAULT_WINDOW_DAYS - 1} days before --to)`)
      .option('--to <YYYY-MM-DD>', 'last day (default: the newest day before today that the database has complete)')
      .option(
        '--brand <id>',
        "a brand id (repeatable, or comma-separated); default: the config's brands, else every brand in the database",
        collect,
      )
      .option('--db <path>', "DuckDB file to read (default: the config's db, env BVSYNC_DB); opened read-only")
      .option('--working', 'read the working file the worker writes instead of the published one')
      .option(
        '--max-calls <n>',
        'most API requests spent narrowing disagreements down to days (the whole-window comparison always runs)',
        String(DEFAULT_NARROWING_CALLS),
      )
      .option(
        '--all',
        'list every figure; without it, the agreeing figures of single topics, pages, ownerships and products are counted, not listed',
      )
      .option('--json', 'print the comparison as one JSON object, every figure in it'),
  ).action(async (flags: VerifyFlags) => {
    const maxCalls = Number(flags.maxCalls);
    if (!Number.isInteger(maxCalls) || maxCalls < 0)
      throw new UsageError(`--max-calls "${flags.maxCalls}" is not a whole number of requests (0 or more)`);
    const from = flags.from === undefined ? undefined : parseDay(flags.from, '--from');
    const to = flags.to === undefined ? undefined : parseDay(flags.to, '--to');
    if (from && to && from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
    const today = commandToday();
    for (const [flag, day] of [
      ['--from', from],
      ['--to', to],
    ] as const) {
      // Checked before a request: the API has nothing for them, and every figure would agree at 0.
      if (day && day > today)
        throw new UsageError(
          `${flag} ${day} is in the future (today is ${today}, UTC); verify compares days that have passed`,
        );
    }
    const config = readConfig(flags);
    requireApiSettings(config.api);
    // Said as sync says it, rather than as the first request's bare ECONNREFUSED (test/e2e/verify.int.test.ts).
    await checkReachable(config.api.url!);
    const log = commandLogger(flags);
    await withReadOnly(databasePath(flags), async (db) => {
      const freshness = await newestCompletePastDays(rowReader(db.connection), today);
      const window = chooseWindow(freshness, from, to);
      const given = flags.brand?.flatMap((text) => parseBrandList(text, '--brand'));
      const brands = given?.length ? [...new Set(given)] : config.brands.length ? config.brands : brandsOf(freshness);
      if (brands.length === 0)
        throw new UsageError(`no brand to verify: the database ${db.path} has none; pass --brand ID`);
      await withRedis(config, log, { allowPrivate: true }, async (connection) => {
        const budget = new CallBudget(maxCalls);
        // The sync's client stack: the key's shared rate budget in Redis, its retries, 429s waited out.
        const client = createApiClient(config.api, {
          logger: log,
          budget: configuredRateBudget(config, connection, { logger: log }),
          retryRateLimited: true,
          onRequest: () => budget.count(),
        });
        try {
          const report = await verifyWarehouse({
            client,
            connection: db.connection,
            brands,
            window,
            budget,
            engineBreakdown: config.sync.engineBreakdown,
          }).catch((error: unknown) => {
            throw explainRefusal(error);
          });
          process.stdout.write(
            flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderVerify(report, { all: flags.all }),
          );
          if (!report.agree) process.exitCode = EXIT_NOT_DONE;
        } finally {
          await client.close().catch(() => undefined);
        }
      });
    });
  });
}

/** A refused key or brand is a setup error (exit 2), said with what to check, as sync and plan say it. */
function explainRefusal(error: unknown): unknown {
  if (error instanceof AuthError)
    return new UsageError(refusedKeyMessage(answerWithRequest(error), '; nothing was compared'));
  if (error instanceof BrandAccessDeniedError)
    return new UsageError(
      `the API key cannot read a brand asked for (${error.endpoint}: ${answerWithRequest(error)}); nothing was compared. Pass --brand with the brands the key may use`,
    );
  return error;
}

/** --from/--to, defaulting to the week that ends on the newest day before today the database has complete. */
function chooseWindow(freshness: NewestCompleteDay[], from: string | undefined, to: string | undefined): DayWindow {
  let last = to;
  if (!last) {
    const days = freshness.map((entry) => entry.newestCompleteDay).filter((day): day is string => day !== null);
    if (days.length === 0)
      throw new UsageError('the database has no complete day before today to verify; pass --from and --to');
    last = days.reduce(maxDay);
  }
  const first = from ?? addDays(last, -(DEFAULT_WINDOW_DAYS - 1));
  if (first > last) throw new UsageError(`--from ${first} is after the last day ${last}; pass --to`);
  return { from: first, to: last };
}

function brandsOf(freshness: NewestCompleteDay[]): number[] {
  return [...new Set(freshness.map((entry) => entry.brand))];
}
