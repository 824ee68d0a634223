import { existsSync } from 'node:fs';
import { requireApiSettings } from '../../config/api-settings.js';
import { Command } from 'commander';
import { createWriteClient, type WriteClient } from '../../api/writes/writes.js';
import { parseBrandList } from '../../config/load.js';
import { changeLine, planSummary } from '../../manage/change-lines.js';
import { readDesiredState } from '../../manage/desired-state-input.js';
import type { ChangePlan } from '../../manage/planned-change.js';
import { makePlan } from '../../manage/make-plan.js';
import { warehouseTopics } from '../../manage/warehouse-topics.js';
import { ManageFileError } from '../../manage/manage-file-error.js';
import { addCommonOptions, commandLogger, readConfig, type CommonFlags } from '../context.js';
import { EXIT_NOT_DONE } from '../exit-codes.js';
import { UsageError } from '../fail.js';
import { endOnInterrupt } from '../signals.js';
import { explainReadFailure } from './manage-read-failure.js';
import { createMemoryRateBudget, configuredRateBudget, type RateBudget } from '../../api/rate/rate-budget.js';
import { connectRedis, LOCAL_REDIS_URL } from '../../engine/redis/redis.js';
import type { Logger } from '../../log.js';
import { within } from '../../within.js';
import type { Config } from '../../configuration.js';
import { descriptionOf } from '../commands.js';

export interface ManageFlags extends CommonFlags {
  fromSql?: string;
  db?: string;
  brand?: string;
  json?: boolean;
}

/** The options `plan` and `apply` share: where the desired state comes from, and how to print. */
export function addManageOptions(command: Command): Command {
  return addCommonOptions(
    command
      .argument('[file]', 'the desired state of one brand, YAML or JSON (docs/managing.md), e.g. examples/brand-1.yaml')
      .option(
        '--from-sql <query>',
        "pages to track from a DuckDB query with a url column (title and group optional), besides the file's",
      )
      .option(
        '--db <path>',
        "DuckDB file --from-sql runs in, read-only (default: the config's db when it exists, else an in-memory DuckDB)",
      )
      .option('--brand <id>', 'the brand, when no file names it (with --from-sql alone)')
      .option('--json', 'print the items as JSON instead of lines'),
  );
}

/** How long `plan` and `apply` wait for each answer of a Redis that accepted the connection. */
const REDIS_ANSWER_MS = 5_000;

/**
 * The rate budget of `plan` and `apply`: the workers' one in Redis when a Redis answers, so writes and a sync share the
 * key's rate; else one of this process alone, as a plan needs no Redis and starts none.
 */
async function writeBudget(config: Config, log: Logger): Promise<{ budget: RateBudget; close(): void }> {
  const redis = connectRedis(config.redisUrl ?? LOCAL_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 1500,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
    // A frozen Redis accepts the connection and never answers: neither the probe nor a write waits on it for ever.
    commandTimeout: REDIS_ANSWER_MS,
  });
  redis.on('error', () => undefined);
  const probe = await within(
    redis.connect().then(() => redis.ping()),
    REDIS_ANSWER_MS,
  );
  if (probe.timedOut || probe.error) {
    redis.disconnect();
    log.debug("no Redis answers: the rate budget is this process's alone");
    return {
      budget: createMemoryRateBudget({ requestsPerSecond: config.api.requestsPerSecond }),
      close: () => undefined,
    };
  }
  // Writes are paced at the whole ceiling: no RATE_HEADROOM, which is for reads.
  const budget = configuredRateBudget(config, redis, { headroom: 1, logger: log });
  return { budget, close: () => redis.disconnect() };
}

/**
 * What `plan` and `apply` share: reads the config and the desired state, makes the brand's plan and hands it to `use`
 * with the write client; Ctrl-C ends the command saying `whatItLeaves`.
 */
export async function withManagePlan(
  file: string | undefined,
  flags: ManageFlags,
  whatItLeaves: string,
  use: (plan: ChangePlan, source: string, client: WriteClient) => Promise<void>,
): Promise<void> {
  const disarm = endOnInterrupt(whatItLeaves);
  const config = readConfig(flags);
  requireApiSettings(config.api);
  const brand = flags.brand === undefined ? undefined : parseBrandList(flags.brand, '--brand');
  if (brand !== undefined && brand.length !== 1)
    throw new UsageError(`--brand ${flags.brand}: one brand per desired state`);
  const { desired, source } = await readDesiredState({
    file,
    fromSql: flags.fromSql,
    database: flags.db ?? (flags.fromSql !== undefined && existsSync(config.db) ? config.db : undefined),
    brand: brand?.[0],
  }).catch((error: unknown) => {
    throw error instanceof ManageFileError ? new UsageError(error.message) : error;
  });
  const logger = commandLogger(flags);
  const budget = await writeBudget(config, logger);
  const client = createWriteClient(config.api, { logger, budget: budget.budget });
  try {
    const plan = await makePlan(client, desired, {
      seenTopics: await warehouseTopics(config.db, desired.brand),
    }).catch((error: unknown) => {
      throw explainReadFailure(error, desired.brand, source);
    });
    await use(plan, source, client);
  } finally {
    await client.close();
    budget.close();
    disarm();
  }
}

export function planCommand(): Command {
  return addManageOptions(new Command('plan').description(descriptionOf('plan'))).action(
    (file: string | undefined, flags: ManageFlags) =>
      withManagePlan(file, flags, 'plan sends dry runs only, so nothing was written', async (plan, source) => {
        if (flags.json)
          process.stdout.write(
            `${JSON.stringify({ brand: plan.brandId, items: plan.changes.map(({ write: _write, ...item }) => item) }, null, 2)}\n`,
          );
        else process.stdout.write(`${planSummary(plan, source)}\n${plan.changes.map(changeLine).join('\n')}\n`);
        if (plan.changes.some((change) => change.action === 'rejected')) process.exitCode = EXIT_NOT_DONE;
      }),
  );
}
