import { URL_SETTING } from '../config/api-settings.js';
import { connect } from 'node:net';
import { AccessMemo, type Refusal } from '../engine/fetch/access-memo.js';
import { refusalAnswer } from '../engine/fetch/availability.js';
import { connectForCommand, explainFrozen } from '../engine/redis/redis.js';
import { lookbackWindowDays } from '../engine/plan/plan.js';
import { createApiClient } from '../api/client.js';
import { configuredRateBudget, type RateBudget } from '../api/rate/rate-budget.js';
import {
  ApiError,
  AuthError,
  BrandAccessDeniedError,
  TlsCertificateError,
  isUnavailability,
  refusesKey,
} from '../api/errors.js';
import type { Logger } from '../log.js';
import { checkDatabasePath, checkWarehousePair, DatabasePathError } from '../warehouse/file/database-path.js';
import { measureDiskRoom } from '../warehouse/file/disk-need.js';
import { memoryLimitWarning } from '../warehouse/file/duckdb-budget.js';
import { workingPathFor } from '../warehouse/paths.js';
import {
  answerOf,
  answerWithRequest,
  probeApiConfig,
  probeBrandAccess,
  refusedKeyMessage,
  wrongUrlReason,
} from './brand-access-probe.js';
import { UsageError } from './fail.js';
import type { Config } from '../configuration.js';
import { EXIT_NOT_DONE } from './exit-codes.js';

/** Where an operator sets the brands, as messages name it. */
const BRANDS_SETTING = 'BVSYNC_BRANDS (config "brands")';

export interface PreflightOptions {
  /** The brands the command reads; each costs one request (its competitors list). */
  brands: number[];
  /**
   * An API nobody answers at: a usage error (exit 1) for a command, only a warning for a long-running worker, which
   * must outlive an API that is down for a while (its jobs retry); default true.
   */
  requireReachable?: boolean;
  log: Logger;
  /** Ends the probes early (Ctrl-C). */
  signal?: AbortSignal;
  /**
   * Streams whose refusals are forgotten for every readable brand: a person's command asks again at once after a fix
   * of the account's plan (test/cli/preflight.int.test.ts). Scheduled runs have no preflight and keep them.
   */
  askAgain?: readonly string[];
}

export interface PreflightResult {
  readable: number[];
  /** Brands the API refused to the key (403 `brand_access_denied`), with its answer. */
  denied: Array<Refusal & { brandId: number }>;
  /** Brands whose probe got no answer after retries (5xx, timeouts): the run tries them as usual. */
  unanswered: number[];
  /** Brands read by the content analyses because their competitors list was refused (`probeBrandAccess`), with the refusal. */
  probeRefused: Array<{ brand: number; answer: string }>;
  /** HTTP requests the probes made, retries included. */
  requests: number;
}

/*
 * The preflight: checks made once before a `sync`, `backfill` or `worker` plans or takes anything, cheapest first, so a
 * bad setup costs one message and at most one request per brand:
 *
 * 1. `checkLocalSetup`: the database files (exit 2), then memory limit and disk room (warnings); no request, no Redis.
 * 2. Redis answers (exit 1), so a missing Redis costs no API call.
 * 3. `preflight`: the API's host answers (exit 1), the key is accepted (exit 2), and which brands it reads (exit 2 for none).
 */

/**
 * Step 3 of the preflight: the API, the key and the brands. Each brand is asked for its competitors list: no query
 * parameter, so a wrong `api.params` mapping cannot make a readable brand look unreadable.
 */
export async function preflight(config: Config, redisUrl: string, options: PreflightOptions): Promise<PreflightResult> {
  const nothing: PreflightResult = {
    readable: [],
    denied: [],
    unanswered: options.brands,
    probeRefused: [],
    requests: 0,
  };
  if (!config.api.url) return nothing;
  try {
    await checkReachable(config.api.url);
  } catch (error) {
    if (options.requireReachable !== false) throw error;
    options.log.warn(
      { err: (error as Error).message },
      'preflight: the API does not answer; the key is checked by the first requests that reach it',
    );
    return nothing;
  }
  if (options.brands.length === 0) {
    // Every endpoint is a brand's: without one there is nothing to ask (a worker whose config lists no brands).
    options.log.info("preflight: no brands configured, so the key is checked by the first run's requests");
    return nothing;
  }
  // The key's budget in Redis, as the run's processes share it: its pace, and any block a run's 429 left.
  const connection = connectForCommand(redisUrl);
  let result: PreflightResult;
  try {
    const budget = config.api.apiKey ? configuredRateBudget(config, connection, { logger: options.log }) : undefined;
    result = await probeBrands(config, options, budget);
  } catch (error) {
    throw explainFrozen(error, redisUrl);
  } finally {
    connection.disconnect();
  }
  const { readable, denied, unanswered, requests } = result;
  if (readable.length === 0 && unanswered.length === 0 && denied.length > 0)
    throw new UsageError(
      `the API key cannot read any of the brands to sync (${denied.map((d) => d.brandId).join(', ')}: brand_access_denied); ` +
        `check ${BRANDS_SETTING} and the key's access; \`bvsync doctor\` checks both`,
    );
  if (readable.length === 0 && denied.length === 0) {
    // Nothing answered (timeouts, 5xx): that says nothing of the key, so it is not called accepted.
    options.log.warn(
      { unanswered, requests },
      'preflight: the API answered none of its requests; the run goes on and its first requests check the key',
    );
  } else {
    options.log.info(
      { readable, denied: denied.map((d) => d.brandId), unanswered, requests },
      'preflight: the API key is accepted',
    );
  }
  for (const denial of denied)
    options.log.warn(
      { brand: denial.brandId, requestId: denial.requestId },
      'preflight: the API key cannot read this brand (brand_access_denied); its slices are recorded failed without a request',
    );
  for (const { brand, answer } of result.probeRefused)
    options.log.warn(
      { brand, answer },
      "preflight: the API refused this brand's competitors list but answered its content analyses: the account's plan may lack that endpoint; the competitors stream's slices fail with the API's answer",
    );
  if (readable.length > 0 || denied.length > 0)
    for (const brand of unanswered)
      options.log.warn({ brand }, 'preflight: no answer about this brand; the run tries it');
  await rememberBrandAccess(config, redisUrl, result, options.askAgain ?? []);
  return result;
}

/**
 * Step 1 of the preflight: the database files can be written (exit 2); warnings of a DuckDB memory limit below the one
 * syncs were seen safe at, or of less free space than a run of `windowDays` may need (src/warehouse/file/disk-need.ts).
 */
export async function checkLocalSetup(
  config: Config,
  log: Logger,
  windowDays = lookbackWindowDays(config.sync),
): Promise<void> {
  try {
    for (const path of [config.db, workingPathFor(config.db)]) checkDatabasePath(path);
    // After those: a file that is no DuckDB database is named as such, not as a warehouse without its working file.
    checkWarehousePair(config.db, workingPathFor(config.db));
  } catch (error) {
    if (error instanceof DatabasePathError) throw new UsageError(error.message);
    throw error;
  }
  const { memoryLimit } = config.warehouse;
  const warning = memoryLimitWarning(memoryLimit);
  if (warning) log.warn({ memoryLimit }, `preflight: ${warning}`);
  // Never refused: the estimate is rough, and a full disk stops a run cleanly anyway.
  const room = await measureDiskRoom(config.db, windowDays, memoryLimit).catch(() => undefined);
  if (room?.short)
    log.warn(
      { folder: room.space.folder, freeBytes: room.space.freeBytes, needBytes: room.needBytes },
      `preflight: ${room.line}`,
    );
}

/** Throws a UsageError (exit 1) naming the API's address and the setting when nothing takes a connection there. */
export async function checkReachable(url: string, timeoutMs = 5_000): Promise<void> {
  const parsed = new URL(url);
  const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  await new Promise<void>((resolve, reject) => {
    const socket = connect({ host: parsed.hostname, port });
    const fail = (why: string) => {
      socket.destroy();
      reject(
        new UsageError(
          `cannot reach the API at ${parsed.origin}: ${why}; check ${URL_SETTING} and the network`,
          EXIT_NOT_DONE,
        ),
      );
    };
    socket.setTimeout(timeoutMs, () => fail(`no answer within ${timeoutMs / 1000} s`));
    socket.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
  });
}

/** Brands asked at once after the first; the key's shared budget paces them as it does a run's requests. */
const PROBES_AT_ONCE = 8;

type ProbeOutcome =
  | { brand: number; access: Awaited<ReturnType<typeof probeBrandAccess>> }
  | { brand: number; error: unknown };

/**
 * One request per brand: the first alone, so a refused key or a silent API ends it at once; then PROBES_AT_ONCE at a
 * time, answers in the brands' order, paced by the key's budget in Redis.
 */
async function probeBrands(
  config: Config,
  options: PreflightOptions,
  budget: RateBudget | undefined,
): Promise<PreflightResult> {
  let requests = 0;
  // Its waits are bounded and its retries logged, so a silent API is told soon; a brand unanswered here is still run.
  const client = createApiClient(probeApiConfig(config.api), {
    budget,
    retryRateLimited: true,
    signal: options.signal,
    logger: options.log,
    onRequest: () => (requests += 1),
  });
  const result: PreflightResult = { readable: [], denied: [], unanswered: [], probeRefused: [], requests: 0 };
  // Answers that say the URL is wrong rather than anything about a brand, while no brand was read.
  const wrongUrl: ApiError[] = [];
  const probe = (brand: number): Promise<ProbeOutcome> =>
    probeBrandAccess(client, brand).then(
      (access) => ({ brand, access }),
      (error: unknown) => ({ brand, error }),
    );
  /** Takes one brand's outcome; true when the API answered nothing so far, so the brands after it are not worth asking. */
  const take = (outcome: ProbeOutcome): boolean => {
    const { brand } = outcome;
    if ('access' in outcome) {
      result.readable.push(brand);
      if (outcome.access.listRefused) result.probeRefused.push({ brand, answer: answerOf(outcome.access.listRefused) });
      return false;
    }
    const { error } = outcome;
    if (options.signal?.aborted)
      throw new UsageError('stopped by a signal before the run started; nothing was planned', EXIT_NOT_DONE);
    if (error instanceof AuthError) throw refusedKey(error, requests);
    // Every request meets the same certificate: nothing can be fetched until it is trusted.
    if (error instanceof TlsCertificateError) throw new UsageError(`${error.message}; nothing was planned or fetched`);
    if (error instanceof BrandAccessDeniedError) {
      result.denied.push({ brandId: brand, stream: null, ...refusalAnswer(error, Date.now()) });
      return false;
    }
    if (!(error instanceof ApiError)) throw error;
    // No answer (5xx, timeouts, after retries) or one that says nothing about the key: not a reason to skip it.
    result.unanswered.push(brand);
    if (wrongUrlReason(error) !== undefined) {
      wrongUrl.push(error);
      return false;
    }
    return isUnavailability(error) && result.readable.length === 0 && result.denied.length === 0;
  };
  try {
    const [first, ...rest] = options.brands;
    // An API that answered nothing yet is not asked about every other brand, each at its timeouts: the run will.
    if (take(await probe(first!))) {
      result.unanswered.push(...rest);
    } else {
      const outcomes: ProbeOutcome[] = new Array<ProbeOutcome>(rest.length);
      let next = 0;
      const lane = async (): Promise<void> => {
        while (next < rest.length) {
          const index = next++;
          outcomes[index] = await probe(rest[index]!);
        }
      };
      await Promise.all(Array.from({ length: Math.min(PROBES_AT_ONCE, rest.length) }, lane));
      // All were asked: each answer counts, whatever an earlier brand's was.
      for (const outcome of outcomes) take(outcome);
    }
  } finally {
    await client.close().catch(() => undefined);
  }
  result.requests = requests;
  if (result.readable.length === 0 && result.denied.length === 0 && wrongUrl.length === options.brands.length)
    throw wrongApiUrl(config, wrongUrl[0]!);
  return result;
}

/** Every brand met a 404 or a failed TLS handshake: the URL is not the API's base, whatever the brands are. */
function wrongApiUrl(config: Config, error: ApiError): UsageError {
  const why = wrongUrlReason(error)!.replace('(HTTP 404)', '(HTTP 404 for every brand)');
  return new UsageError(
    `${why}; nothing was planned or fetched. Check ${URL_SETTING} (now ${config.api.url}): it is the API's base URL, before /customer/v1`,
  );
}

function refusedKey(error: AuthError, requests: number): UsageError {
  // A 403 naming neither the key nor the brand stops the command only when two endpoints gave it (probeBrandAccess).
  const both = refusesKey(error) ? '' : ', on the competitors list and the content analyses both';
  return new UsageError(
    refusedKeyMessage(
      `${answerWithRequest(error)}${both}`,
      ` after ${requests} request${requests === 1 ? '' : 's'}; nothing was planned or fetched`,
    ),
    undefined,
    // Its cause's code (`unauthorized`) is what makes a command send `key_refused` (src/notify/failure-notice.ts).
    { cause: error },
  );
}

/**
 * Shares what the preflight learnt with every process of the prefix: refused brands are remembered
 * (src/engine/fetch/access-memo.ts), and a brand or key read again is forgotten, so a fix is used at once.
 */
async function rememberBrandAccess(
  config: Config,
  redisUrl: string,
  result: PreflightResult,
  askAgain: readonly string[],
): Promise<void> {
  if (!config.api.apiKey || (result.denied.length === 0 && result.readable.length === 0)) return;
  const connection = connectForCommand(redisUrl);
  try {
    const memo = new AccessMemo(connection, config.redisPrefix, config.api.apiKey);
    // Any answer about a brand means the key itself was accepted: a refusal remembered from a run is over.
    await memo.forget(null);
    for (const denial of result.denied) await memo.remember(denial);
    for (const brand of result.readable) await memo.forget(brand, askAgain);
  } catch (error) {
    throw explainFrozen(error, redisUrl);
  } finally {
    connection.disconnect();
  }
}
