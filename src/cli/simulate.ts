import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { ParamMapping } from '../api/param-names.js';
import { loadProcessSettings } from '../config/load.js';
import { ENDPOINT_PARAMS, isParamName } from '../streams/registry.js';
import { createLogger } from '../log.js';
import { DEFAULT_KNOBS as KNOBS, FAULT_KINDS, type FaultKind } from '../simulator/knobs.js';
import { SIMULATOR_DEFAULTS as DEFAULTS } from '../simulator/options.js';
import { startSimulator, type SimulatorOptions } from '../simulator/index.js';
import { parseDay } from '../days.js';
import { listenError, UsageError } from './fail.js';
import { commaList, integerOption } from './context.js';
import { stopSignal } from './signals.js';
import { errorMessage } from '../format.js';
import { EXIT_NOT_DONE } from './exit-codes.js';
import { descriptionOf } from './commands.js';

/** A day that exists (2026-02-30 does not), checked as the option is read. */
function day(name: string) {
  return (text: string): string => {
    try {
      return parseDay(text, name);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };
}

function share(text: string): number {
  const value = Number(text);
  if (!(value >= 0 && value <= 1)) throw new InvalidArgumentError('must be a number from 0 to 1');
  return value;
}

function positive(text: string): number {
  const value = Number(text);
  if (!(value >= 0)) throw new InvalidArgumentError('must be a number >= 0');
  return value;
}

/**
 * The `--params` file: default name -> wire name, and under `endpoints` one endpoint's names over those (by its path
 * under the brand, as bvsync's `api.endpointParams`).
 */
function readParams(file: string): { params: ParamMapping; endpointParams: Record<string, ParamMapping> } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--params ${file}: ${errorMessage(error)}`);
  }
  const mappingOf = (value: unknown, where: string): ParamMapping => {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new UsageError(`--params ${file}: expected ${where} to be an object of default name -> wire name`);
    const mapping: Record<string, string> = {};
    for (const [key, wire] of Object.entries(value)) {
      if (!isParamName(key)) throw new UsageError(`--params ${file}: unknown parameter name "${key}"`);
      if (typeof wire !== 'string' || wire.length === 0)
        throw new UsageError(`--params ${file}: "${key}" must map to a non-empty string`);
      mapping[key] = wire;
    }
    return mapping;
  };
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError(`--params ${file}: expected an object of default name -> wire name`);
  const { endpoints, ...names } = parsed as Record<string, unknown>;
  const params = mappingOf(names, 'the file');
  const endpointParams: Record<string, ParamMapping> = {};
  if (endpoints !== undefined) {
    if (endpoints === null || typeof endpoints !== 'object' || Array.isArray(endpoints))
      throw new UsageError(`--params ${file}: expected "endpoints" to be an object of endpoint -> names`);
    for (const [endpoint, mapping] of Object.entries(endpoints)) {
      // As bvsync's api.endpointParams: a misspelt endpoint would rehearse nothing, silently.
      if (!ENDPOINT_PARAMS.has(endpoint))
        throw new UsageError(
          `--params ${file}: unknown endpoint "${endpoint}" in "endpoints"; endpoints: ${[...ENDPOINT_PARAMS.keys()].join(', ')}`,
        );
      endpointParams[endpoint] = mappingOf(mapping, `"endpoints"."${endpoint}"`);
    }
  }
  return { params, endpointParams };
}

/** The options, named as the simulator's but for these, which the command reads or turns into the simulator's. */
interface SimulateFlags extends Omit<SimulatorOptions, 'params' | 'faultKinds'> {
  port: number;
  params?: string;
  retryAfter: number;
  faultKinds: string;
  json: boolean;
  logLevel: string;
}

/** `bvsync simulate`: serves the API twin until SIGINT/SIGTERM. */
export function simulateCommand(): Command {
  return new Command('simulate')
    .description(descriptionOf('simulate'))
    .option('--port <n>', 'TCP port (0 = any free port)', integerOption('--port', 0, 65_535), 4010)
    .option('--host <host>', 'interface to listen on', DEFAULTS.host)
    .option('--seed <n>', 'seed of all generated data', integerOption('--seed'), DEFAULTS.seed)
    .option(
      '--brands <n>',
      'readable brands 1..N (brand N+1 exists but is forbidden)',
      integerOption('--brands', 1),
      DEFAULTS.brands,
    )
    .option('--days <n>', 'days of data ending today', integerOption('--days', 1), DEFAULTS.days)
    .option('--scale <n>', 'answers per brand per day (± 15 %)', integerOption('--scale', 1), DEFAULTS.scale)
    .option('--api-key <key>', 'the API key to accept (default: bvk_sim_local_key)')
    .option('--today <YYYY-MM-DD>', "the simulator's today (default: the real UTC day)", day('--today'))
    .option(
      '--params <file.json>',
      'wire names of query parameters: {"start_date": "from", ..., "endpoints": {"tracked-urls": {"start_date": "start"}}}',
    )
    .addOption(
      new Option('--array-format <format>', 'how arrays travel in query strings')
        .choices(['repeat', 'comma'])
        .default(DEFAULTS.arrayFormat),
    )
    .addOption(
      new Option(
        '--range-end-echo <form>',
        'how info.query echoes the range: as sent, the end as the instant after it, the end as its midnight, or both ends 5 h behind UTC',
      )
        .choices(['inclusive', 'exclusive', 'midnight', 'offset'])
        .default(DEFAULTS.rangeEndEcho),
    )
    .option('--idempotency-header <name>', 'name of the idempotency header', DEFAULTS.idempotencyHeader)
    .option(
      '--plan-topic-limit <n>',
      'topics a brand plan holds',
      integerOption('--plan-topic-limit', 1),
      DEFAULTS.planTopicLimit,
    )
    .option(
      '--max-cached-answers <n>',
      'answers kept in the day cache (about 1 KB each)',
      integerOption('--max-cached-answers', 1),
      DEFAULTS.maxCachedAnswers,
    )
    .option('--latency-ms <n>', 'delay before each answer', integerOption('--latency-ms'), KNOBS.latencyMs)
    .option(
      '--rate-limit <rps>',
      'requests per second per key, 0 = unlimited (over it: 429)',
      positive,
      KNOBS.rateLimit,
    )
    .option(
      '--retry-after <s>',
      'Retry-After seconds of a 429',
      integerOption('--retry-after'),
      KNOBS.retryAfterSeconds,
    )
    .addOption(
      new Option('--retry-after-format <format>', 'Retry-After as seconds or an HTTP date')
        .choices(['seconds', 'http-date'])
        .default(KNOBS.retryAfterFormat),
    )
    .addOption(
      new Option('--rate-limit-headers <format>', 'rate-limit headers on every answer (with --rate-limit)')
        .choices(['none', 'ietf', 'ietf-structured', 'x-ratelimit'])
        .default(KNOBS.rateLimitHeaders),
    )
    .addOption(
      new Option('--rate-limit-reset <form>', 'how X-RateLimit-Reset is written')
        .choices(['delta-seconds', 'unix-seconds', 'unix-milliseconds', 'http-date'])
        .default(KNOBS.rateLimitReset),
    )
    .addOption(
      new Option('--rate-limit-algorithm <kind>', 'how --rate-limit counts: one-second windows or a token bucket')
        .choices(['fixed-window', 'token-bucket'])
        .default(KNOBS.rateLimitAlgorithm),
    )
    .option('--fault-rate <p>', 'share of requests that fail', share, KNOBS.faultRate)
    .option('--fault-kinds <list>', `comma-separated, among ${FAULT_KINDS.join(', ')}`, KNOBS.faultKinds.join(','))
    .option(
      '--stall-ms <n>',
      'how long a stalled body hangs before the connection closes',
      integerOption('--stall-ms'),
      KNOBS.stallMs,
    )
    .option('--late-share <p>', "share of a day's answers that arrive late", share, KNOBS.lateShare)
    .option(
      '--late-days <n>',
      'late answers arrive 1..N days after their date',
      integerOption('--late-days', 1),
      KNOBS.lateDays,
    )
    .option('--extra-field-share <p>', 'share of records with unknown extra fields', share, KNOBS.extraFieldShare)
    .option(
      '--unknown-enum-share <p>',
      'share of records with enum values the spec does not list',
      share,
      KNOBS.unknownEnumShare,
    )
    .option('--invalid-share <p>', 'share of invalid records', share, KNOBS.invalidShare)
    .option('--no-strict-params', 'ignore query parameters an endpoint does not know (default: 400)')
    .option('--json', 'print the start-up facts as one JSON line', false)
    .option('--log-level <level>', 'pino level; requests are logged at debug', 'info')
    .action(async ({ faultKinds: kinds, apiKey, params, retryAfter, json, logLevel, ...flags }: SimulateFlags) => {
      const faultKinds = commaList(kinds);
      for (const kind of faultKinds) {
        if (!(FAULT_KINDS as readonly string[]).includes(kind))
          throw new UsageError(`--fault-kinds: unknown kind "${kind}"; known: ${FAULT_KINDS.join(', ')}`);
      }
      const logger = createLogger({ level: logLevel ?? loadProcessSettings().logLevel });
      const options: SimulatorOptions = {
        ...flags,
        ...(apiKey ? { apiKey } : {}),
        ...(params ? readParams(params) : {}),
        retryAfterSeconds: retryAfter,
        faultKinds: faultKinds as FaultKind[],
        onRequest: ({ method, path, query, status, durationMs: ms, fault }) =>
          logger.debug({ method, path, query, status, ms, fault }, 'request'),
      };
      let sim: Awaited<ReturnType<typeof startSimulator>>;
      try {
        sim = await startSimulator(options);
      } catch (error) {
        const refused = listenError(error, '--port', flags.port, flags.host);
        if (refused !== error) throw refused;
        throw new UsageError(`cannot start the simulator: ${errorMessage(error)}`, EXIT_NOT_DONE);
      }
      const facts = {
        url: sim.url,
        api_key: sim.apiKey,
        brands: sim.brands,
        forbidden_brand: sim.forbiddenBrand,
        today: sim.truth.today(),
        first_day: sim.truth.firstDay(),
      };
      // The key is printed on purpose (it is the simulator's own, and the user needs it); it never goes to the log.
      if (json) process.stdout.write(`${JSON.stringify(facts)}\n`);
      else {
        process.stdout.write(
          [
            `Simulator of the Brand Visibility Customer API v1 at ${sim.url}`,
            `  API key:   ${sim.apiKey}`,
            `  brands:    ${sim.brands.join(', ')} (brand ${sim.forbiddenBrand} exists but is not readable)`,
            `  data:      ${facts.first_day} .. ${facts.today}`,
            `  admin:     ${sim.url}/__admin/knobs, /__admin/clock, /__admin/requests`,
            '',
          ].join('\n'),
        );
      }
      await stopSignal();
      await sim.close();
    });
}
