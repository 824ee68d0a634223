import { Command } from 'commander';
import { Redis } from 'ioredis';
import { createApiClient, type ApiClient } from '../api/client.js';
import { ApiError, AuthError, BrandAccessDeniedError, PagingError, ValidationError } from '../api/errors.js';
import { wireName, type ParamMapping, type ParamName } from '../api/param-names.js';
import { formatDay } from '../api/query.js';
import { ConfigError, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { redactSecrets } from '../log.js';

export interface DoctorCheck {
  ok: boolean;
  /** One line: what was checked and, on failure, why. */
  line: string;
}

export interface DoctorOptions {
  /** Config file path; default as `loadConfig` finds it. */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Receives each check as it completes; default: print it. */
  report?: (check: DoctorCheck) => void;
  /** The day the probes' date ranges end on; default yesterday (UTC). */
  today?: Date;
}

const REDIS_DEFAULT = 'redis://127.0.0.1:6379';

export function doctorCommand(): Command {
  return new Command('doctor')
    .description('Checks the config, Redis, that the API answers, that the key reads each brand, and the query parameter mapping')
    .option('-c, --config <path>', 'config file (default: BVSYNC_CONFIG or ./bvsync.config.json)')
    .action(async (flags: { config?: string }) => {
      const checks = await runDoctor({ configPath: flags.config });
      const failed = checks.filter((c) => !c.ok).length;
      process.stdout.write(failed ? `\n${failed} check${failed > 1 ? 's' : ''} failed\n` : '\nall checks passed\n');
      if (failed) process.exitCode = 1;
    });
}

/** Runs every check in order and returns them; a check that cannot run because an earlier one failed is skipped. */
export async function runDoctor(options: DoctorOptions = {}): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const report = options.report ?? ((c: DoctorCheck) => process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'}  ${redactSecrets(c.line)}\n`));
  const add = (ok: boolean, line: string) => {
    const check = { ok, line };
    checks.push(check);
    report(check);
    return ok;
  };

  let config: Config;
  try {
    config = loadConfig({ path: options.configPath, env: options.env });
  } catch (error) {
    add(false, `config: ${error instanceof ConfigError ? error.message : String(error)}`);
    return checks;
  }
  const missing = [
    !config.api.url && 'api.url (BVSYNC_API_URL)',
    !config.api.apiKey && 'api.apiKey (BVSYNC_API_KEY)',
    config.brands.length === 0 && 'brands (BVSYNC_BRANDS)',
  ].filter(Boolean);
  if (!add(missing.length === 0, missing.length ? `config: missing ${missing.join(', ')}` : `config: ${config.brands.length} brand(s), API ${config.api.url}`)) {
    await checkRedis(config, add);
    return checks;
  }
  await checkRedis(config, add);

  const client = createApiClient({ ...config.api, maxAttempts: Math.min(config.api.maxAttempts, 3) }, { retryRateLimited: true });
  try {
    await checkApi(client, config, options.today ?? yesterday(), add);
  } finally {
    await client.close();
  }
  return checks;
}

type Add = (ok: boolean, line: string) => boolean;

async function checkRedis(config: Config, add: Add): Promise<void> {
  const url = config.redisUrl ?? REDIS_DEFAULT;
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 3000, enableOfflineQueue: false, retryStrategy: () => null });
  redis.on('error', () => {}); // the failure is reported by the awaited calls below
  try {
    await redis.connect();
    const pong = await redis.ping();
    add(pong === 'PONG', `redis: ${safeUrl(url)} answers PING`);
  } catch (error) {
    add(false, `redis: ${safeUrl(url)}: ${error instanceof Error ? error.message : String(error)} (set REDIS_URL, or run \`docker compose up -d redis\`)`);
  } finally {
    redis.disconnect();
  }
}

async function checkApi(client: ApiClient, config: Config, today: Date, add: Add): Promise<void> {
  const [first] = config.brands;
  // Any HTTP answer, even a refusal, shows the API is there; a 401 means the key is wrong for all of it.
  try {
    await client.competitors(first!);
    add(true, `api: ${config.api.url} answers`);
  } catch (error) {
    if (error instanceof AuthError) return void add(false, `api: the key is refused: ${describe(error)}`);
    if (!(error instanceof ApiError) || error.status === undefined) return void add(false, `api: no answer from ${config.api.url}: ${describe(error)}`);
    add(true, `api: ${config.api.url} answers`);
  }

  const readable: number[] = [];
  for (const brand of config.brands) {
    try {
      // No query parameter at all, so a wrong parameter mapping cannot make a readable brand look unreadable.
      const competitors = await client.competitors(brand);
      readable.push(brand);
      add(true, `brand ${brand}: readable (${competitors.records.length} competitors)`);
    } catch (error) {
      const why = error instanceof BrandAccessDeniedError ? 'the key has no access to it (brand_access_denied)' : describe(error);
      add(false, `brand ${brand}: ${why}`);
    }
  }
  const probe = readable[0];
  if (probe === undefined) return void add(false, 'parameter mapping: not checked, no brand is readable');

  await checkPaging(client, config.api.params, probe, add);
  await checkReportEcho(client, config, probe, today, add);
}

/** `page` and `page_size` are not echoed by the reports; a page of size 1 and a second page show whether they apply. */
async function checkPaging(client: ApiClient, params: ParamMapping, brand: number, add: Add): Promise<void> {
  const names = `page as "${wireName('page', params)}", page_size as "${wireName('page_size', params)}"`;
  try {
    const pages = client.contentAnalyses(brand, { pageSize: 1 });
    const first = await pages.next();
    if (first.done) throw new Error('no page');
    const sizeApplied = first.value.records.length + first.value.rejects.length <= 1 && (first.value.info.page_size ?? 1) === 1;
    if (!sizeApplied) {
      await pages.return(undefined as never);
      return void add(false, `parameter mapping: ${names}: asked for 1 record per page, the API sent ${first.value.records.length} (page_size ${first.value.info.page_size ?? '?'}); check api.params.page_size`);
    }
    if ((first.value.totalRows ?? 0) >= 2) await pages.next(); // a wrong page name fails here with a PagingError
    await pages.return(undefined as never);
    add(true, `parameter mapping: ${names}`);
  } catch (error) {
    add(false, `parameter mapping: ${names}: ${describe(error)}`);
  }
}

interface Probe {
  name: ParamName;
  sent: unknown;
}

/**
 * Sends the two reports with known non-default filters and compares them with the `info.query` echo: a
 * parameter sent under a name the API does not know comes back missing or at its default (or, from a strict
 * API, as a 400 naming it).
 */
async function checkReportEcho(client: ApiClient, config: Config, brand: number, today: Date, add: Add): Promise<void> {
  const end = formatDay(new Date(today.getTime() - 2 * 86_400_000));
  const start = formatDay(new Date(today.getTime() - 9 * 86_400_000));
  const engines = config.api.engines.length ? config.api.engines.slice(0, 2) : undefined;

  let topicIds: number[] | undefined;
  try {
    const all = await client.visibilityTopics(brand, {});
    const topic = all.records[0]?.topic_id;
    if (topic !== undefined) topicIds = [topic];
  } catch {
    // the probe below reports the failure with its details
  }
  const visibility: Probe[] = [
    { name: 'start_date', sent: start },
    { name: 'end_date', sent: end },
    { name: 'include_scenarios', sent: true },
    ...(engines ? [{ name: 'engines' as const, sent: engines }] : []),
    ...(topicIds ? [{ name: 'topic_ids' as const, sent: topicIds }] : []),
  ];
  await compareEcho('visibility report', visibility, config.api.params, add, async () =>
    (await client.visibilityTopics(brand, { startDate: start, endDate: end, includeScenarios: true, engines, topicIds })).info.query,
  );

  const citations: Probe[] = [
    { name: 'start_date', sent: start },
    { name: 'end_date', sent: end },
    { name: 'period', sent: 'week' },
    { name: 'ownership', sent: ['first_party', 'competitor_owned'] },
    { name: 'content_types', sent: ['blog_article'] },
    { name: 'sentiment', sent: ['positive', 'neutral'] },
    { name: 'first_party', sent: false },
    { name: 'domains', sent: ['example.com'] },
  ];
  await compareEcho('citations report', citations, config.api.params, add, async () =>
    (
      await client.citations(brand, {
        startDate: start,
        endDate: end,
        period: 'week',
        ownership: ['first_party', 'competitor_owned'],
        contentTypes: ['blog_article'],
        sentiment: ['positive', 'neutral'],
        firstParty: false,
        domains: ['example.com'],
        engines,
      })
    ).info.query,
  );
}

async function compareEcho(
  label: string,
  probes: Probe[],
  params: ParamMapping,
  add: Add,
  fetchEcho: () => Promise<Record<string, unknown> | null | undefined>,
): Promise<void> {
  let echo: Record<string, unknown>;
  try {
    echo = (await fetchEcho()) ?? {};
  } catch (error) {
    if (error instanceof ValidationError && error.details?.length) {
      const fields = error.details.map((d) => `"${d.field}" (${d.message})`).join(', ');
      return void add(false, `parameter mapping (${label}): the API rejected ${fields}; check api.params`);
    }
    return void add(false, `parameter mapping (${label}): ${describe(error)}`);
  }
  const wrong: string[] = [];
  for (const probe of probes) {
    const wire = wireName(probe.name, params);
    const applied = wire in echo ? echo[wire] : echo[probe.name];
    if (applied === undefined) wrong.push(`${probe.name} sent as "${wire}" is not in the echo`);
    else if (!sameValue(probe.sent, applied)) wrong.push(`${probe.name} sent as "${wire}"=${JSON.stringify(probe.sent)} was applied as ${JSON.stringify(applied)}`);
  }
  const checked = probes.map((p) => p.name).join(', ');
  if (wrong.length) add(false, `parameter mapping (${label}): ${wrong.join('; ')}; check api.params and api.arrayFormat`);
  else add(true, `parameter mapping (${label}): ${checked} applied as sent`);
}

function sameValue(sent: unknown, applied: unknown): boolean {
  const norm = (v: unknown): string => {
    if (Array.isArray(v)) return v.map((x) => String(x).toLowerCase()).sort().join(',');
    if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v)) return v.slice(0, 10);
    return String(v).toLowerCase();
  };
  return norm(sent) === norm(applied);
}

function describe(error: unknown): string {
  if (error instanceof PagingError) return error.message;
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

function yesterday(): Date {
  return new Date(Date.now() - 86_400_000);
}

function safeUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
