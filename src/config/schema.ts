import { homedir } from 'node:os';
import { z } from 'zod';
import { DAY_PATTERN, isDay } from '../days.js';
import { cronProblem } from './cron-check.js';
import { checkRedisSettings, redisConfigSchema } from './redis-settings.js';
import { redisAddressProblem } from '../redis-address.js';
import { backfillShare, parseBudgetWindow } from './budget-window.js';
import { REDIS_PREFIX_PATTERN, REDIS_PREFIX_RULE } from '../redis-keys.js';

/**
 * What the schema takes from the stream registry. src/configuration.ts hands it in, and adds the streams' own `sync`
 * settings, since the config layer imports no stream (test/architecture.test.ts, "no circle between layers").
 */
export interface StreamCatalog<Name extends string> {
  /** Every stream's name: `sync.streams` and a schedule's `streams` take them. */
  streamNames: readonly [Name, ...Name[]];
  /** The query parameter names bvsync may send, which `api.params` maps to wire names. */
  paramNames: readonly string[];
  /** The parameters each endpoint may send, by endpoint name, which `api.endpointParams` maps. */
  endpointParams: ReadonlyMap<string, readonly string[]>;
  /** The root domain of a host name, or null when it names none (`sync.domains`). */
  domainOf(text: string): string | null;
}

/** Default parameter name -> wire name, as `api.params` and each endpoint of `api.endpointParams` give them. */
type ParamMapping = { readonly [name: string]: string | undefined };

/** The part of the catalog the `api` settings check their parameter names against. */
type ParamCatalog = Pick<StreamCatalog<string>, 'paramNames' | 'endpointParams'>;

// A calendar day: the pattern alone would let 2026-02-31 through, and plans would hold days that never were.
const day = z
  .string()
  .regex(DAY_PATTERN, 'expected a day as YYYY-MM-DD')
  .refine((text) => !DAY_PATTERN.test(text) || isDay(text), {
    error: (issue) => `"${String(issue.input)}" is not a day of the calendar; expected YYYY-MM-DD, e.g. 2026-11-20`,
  });

/** Column types `sync.promote` takes: those the loader converts (src/warehouse/load/cell-converters.ts). */
const PROMOTABLE_TYPES = [
  'BIGINT',
  'INTEGER',
  'SMALLINT',
  'DOUBLE',
  'BOOLEAN',
  'VARCHAR',
  'JSON',
  'DATE',
  'TIMESTAMP',
  'TIMESTAMPTZ',
] as const;
const tableName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'expected a table name such as conversations (docs/tables.md)');
const promotedType = z.preprocess(
  (value) => (typeof value === 'string' ? value.trim().toUpperCase() : value),
  z.enum(PROMOTABLE_TYPES, {
    error: (issue) =>
      `${JSON.stringify(issue.input)} is not a type a promoted field can take; expected one of ${PROMOTABLE_TYPES.join(', ')}`,
  }),
);

/** `api.params` and `api.endpointParams`, checked against the parameters the streams send. */
function paramMappings({ paramNames, endpointParams }: ParamCatalog) {
  const paramMapping = z
    .record(z.string(), z.string().min(1))
    .superRefine((mapping, ctx) => {
      for (const key of Object.keys(mapping)) {
        if (!paramNames.includes(key)) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `unknown parameter name "${key}"; known: ${paramNames.join(', ')}`,
          });
        }
      }
    })
    .transform((mapping): ParamMapping => mapping);

  /** `api.endpointParams`: per endpoint, the wire names where it differs from `api.params`. */
  const endpointParamMappings = z
    .record(z.string(), z.record(z.string(), z.string().min(1)))
    .superRefine((byEndpoint, ctx) => {
      for (const [endpoint, mapping] of Object.entries(byEndpoint)) {
        const sent = endpointParams.get(endpoint);
        if (!sent) {
          ctx.addIssue({
            code: 'custom',
            path: [endpoint],
            message: `unknown endpoint "${endpoint}"; endpoints: ${[...endpointParams.keys()].join(', ')}`,
          });
          continue;
        }
        for (const key of Object.keys(mapping)) {
          if (!sent.includes(key)) {
            ctx.addIssue({
              code: 'custom',
              path: [endpoint, key],
              message: `${endpoint} sends no parameter "${key}"; it sends: ${sent.join(', ')}`,
            });
          }
        }
      }
    })
    .transform((byEndpoint): { readonly [endpoint: string]: ParamMapping } => byEndpoint);
  return { paramMapping, endpointParamMappings };
}

/**
 * `~/bv.duckdb` as a shell would read it, since no shell expands it in a JSON config, an env file or a quoted
 * variable. test/config.test.ts.
 */
function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? `${homedir()}${path.slice(1)}` : path;
}

/** `api`, its parameter names checked against the catalog's. */
export function apiConfigSchemaFor(catalog: ParamCatalog) {
  const { paramMapping, endpointParamMappings } = paramMappings(catalog);
  return z
    .object({
      /** Base URL of the API, before `/customer/v1`, with no user or password in it. Env `BVSYNC_API_URL`. */
      url: z
        .url({
          protocol: /^https?$/,
          error: 'expected a URL that starts with http:// or https://, such as https://api.example.com',
        })
        .refine((url) => !URL.canParse(url) || !/\/customer\/v1\/?$/.test(new URL(url).pathname), {
          error: 'the base URL ends before /customer/v1 (bvsync adds it to every path): drop /customer/v1 from it',
        })
        // Never sent (the key goes in X-API-Key), yet printed where the URL is: refused unquoted (test/config.test.ts).
        .refine((url) => !URL.canParse(url) || (!new URL(url).username && !new URL(url).password), {
          error:
            'holds a user name or password, which bvsync never sends (the key goes in BVSYNC_API_KEY): drop the "user:password@"',
        })
        .optional(),
      /** The API key. Env `BVSYNC_API_KEY` (preferred: keep it out of files). Never logged. */
      apiKey: z
        .string()
        .min(1)
        // A key an HTTP header cannot carry as it is makes undici refuse every request, so it is refused here.
        // test/config.test.ts, "the API key".
        .refine((key) => /^[\x21-\x7e]+$/.test(key), {
          error:
            'holds a space, a line break, a curly quote or another character an HTTP header cannot carry (a key pasted with its line end or quotes?); set the key alone',
        })
        .optional(),
      /** Wire names of query parameters, default name -> wire name; default: the names in src/api/param-names.ts (those of docs/openapi.yaml). */
      params: paramMapping.default({}),
      /**
       * Wire names of an endpoint laid over `api.params` where they differ (the spec shows no names): endpoint (its
       * path under the brand, as doctor's table shows it) -> default name -> wire name. Default none.
       */
      endpointParams: endpointParamMappings.default({}),
      /** How arrays are encoded in query strings; default `repeat` (`a=1&a=2`). */
      arrayFormat: z.enum(['repeat', 'comma']).default('repeat'),
      /** Name of the idempotency header of write requests; default `Idempotency-Key`. */
      idempotencyHeader: z.string().min(1).default('Idempotency-Key'),
      /**
       * Most requests per second for this API key, shared by every process; default 10. A 429 cuts the rate, which
       * climbs back slowly; `RateLimit` / `X-RateLimit-*` headers lower the ceiling. `"auto"`: starts at 2/s, finds it.
       */
      requestsPerSecond: z
        .union([z.number().positive().max(10_000), z.literal('auto')], {
          error: 'expected requests per second (a number above 0, at most 10000) or "auto"',
        })
        .default(10),
      /**
       * Requests the API key may make per `requestBudgetWindow`, shared by the prefix's processes; default none. Set it
       * to the plan's quota (the spec shows none); a backfill past it waits for the next window (docs/quota.md).
       */
      dailyRequestBudget: z.number().int().min(1).optional(),
      /**
       * The window `dailyRequestBudget` counts in: `24h` (default), `1h`, `30m`, `1d`. Windows start at multiples of it
       * since the epoch, so a day's runs from 00:00 UTC; set it to how the API counts.
       */
      requestBudgetWindow: z
        .string()
        .refine((text) => parseBudgetWindow(text) !== undefined, {
          error: 'expected a window such as 24h, 1h, 30m or 1d',
        })
        .default('24h'),
      /** Share (0..0.9) of each window's budget kept for sync and scheduled runs; backfills use the rest; default 0.2. */
      reservedForSync: z.number().min(0).max(0.9).default(0.2),
      /** Engine identifiers sent as the engines filter; default none, so the API's per-endpoint defaults apply. */
      engines: z.array(z.string().min(1)).default([]),
      /** Connections per pool; default 8. */
      connections: z.number().int().min(1).max(256).default(8),
      /** Time to the response headers, to the next body chunk, and for the whole request (ms). */
      headersTimeoutMs: z.number().int().positive().default(30_000),
      bodyTimeoutMs: z.number().int().positive().default(30_000),
      requestTimeoutMs: z.number().int().positive().default(60_000),
      /** The largest answer read (MB, as sent and once decoded); a larger one fails its slice instead of the process's heap. */
      maxResponseMb: z.number().positive().max(1024).default(16),
      /** Attempts for a transient failure (5xx, reset, timeout, broken body), with exponential backoff and full jitter. */
      maxAttempts: z.number().int().min(1).max(20).default(5),
      retryBaseMs: z.number().int().min(1).default(250),
      retryMaxMs: z.number().int().min(1).default(20_000),
      /** Records per page; at most 100 (50 for product ranking, which is capped for you). */
      pageSize: z.number().int().min(1).max(100).default(100),
      /**
       * The number of the first page: 1 (default) or 0. The spec numbers pages without saying from what; `bvsync doctor`
       * checks it (an API counting from 0 serves its second page as page 1, and every slice misses its first records).
       */
      firstPage: z
        .union([z.literal(0), z.literal(1)], { error: 'expected 0 or 1, the number the API gives its first page' })
        .default(1),
    })
    .strict()
    .superRefine((api, ctx) => {
      // A backfill share of no whole request parks every backfill slice, window after window (test/config.test.ts).
      if (api.dailyRequestBudget !== undefined && backfillShare(api.dailyRequestBudget, api.reservedForSync) < 1) {
        ctx.addIssue({
          code: 'custom',
          path: ['dailyRequestBudget'],
          message: `${api.dailyRequestBudget} leaves backfills no request once api.reservedForSync (${api.reservedForSync}) is kept for syncs: raise it or lower reservedForSync`,
        });
      }
    });
}

function scheduleSchemaFor<Name extends string>(streamNames: readonly [Name, ...Name[]]) {
  return z
    .object({
      /** A name for logs and `status`, e.g. `daily-reports`. */
      name: z
        .string()
        .min(1)
        .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only'),
      /** A cron expression (node-cron, 5 or 6 fields), evaluated in UTC. */
      cron: z
        .string()
        .min(1)
        .superRefine((expression, ctx) => {
          const problem = cronProblem(expression);
          if (problem)
            ctx.addIssue({ code: 'custom', message: `"${expression}" is not a valid cron expression (${problem})` });
        }),
      /** Streams this schedule syncs; default every stream but the opt-in ones (docs/tables.md, "Engines"). */
      streams: z.array(z.enum(streamNames)).optional(),
    })
    .strict();
}

/** `sync.heal`: verify the days before each scheduled run's today, and re-read those that disagree (docs/healing.md). */
const healConfigSchema = z
  .object({
    /** Days verified, ending the day before the scheduled run's today; default 7 (longer than answers take to arrive). */
    days: z.number().int().min(1).max(90).default(7),
    /**
     * Most API requests one round's comparisons make (the first and the one after the re-read), retries included;
     * default 60. What the budget leaves out is recorded as unresolved (test/e2e/heal-budget.int.test.ts).
     */
    maxCalls: z.number().int().min(0).max(100_000).default(60),
    /**
     * Most requests the re-read may make, each day of a stream counted at what it cost when last read; the newest
     * days go first; only new retries, 429s and pages pass it (docs/healing.md). Default 100.
     */
    maxReadCalls: z.number().int().min(0).max(100_000).default(100),
  })
  .strict();

/** `sync` without the streams' own settings, which src/configuration.ts adds. */
export function syncConfigSchemaFor<Name extends string>(
  catalog: Pick<StreamCatalog<Name>, 'streamNames' | 'domainOf'>,
) {
  return z
    .object({
      /** Streams a plain `sync` runs; default every stream but the opt-in ones (docs/tables.md, "Engines"). */
      streams: z.array(z.enum(catalog.streamNames)).optional(),
      /** Days re-fetched on every incremental run because answers arrive late; default 3. */
      lookbackDays: z.number().int().min(0).max(90).default(3),
      /** The first day an incremental sync fetches when a stream has no state yet; default 30 days ago. */
      startDate: day.optional(),
      /** Days back from today for a first incremental sync when `startDate` is not set; default 30. */
      initialDays: z.number().int().min(1).max(3650).default(30),
      /** Domains whose details and citation series are synced besides tracked URLs' and competitors' domains. */
      domains: z
        .array(
          z.string().refine((text) => catalog.domainOf(text) !== null, {
            error: (issue) => `"${String(issue.input)}" is not a domain; expected a host name such as example.com`,
          }),
        )
        .default([]),
      /**
       * Fetch jobs running at once in one process; default 8, the API pool's connections: a slice pages one request at a
       * time, so fewer slices would leave connections idle (docs/performance.md).
       */
      fetchConcurrency: z.number().int().min(1).max(64).default(8),
      /**
       * Most fetch jobs at once in one process when Redis is far: fetchConcurrency grows by itself again for every full
       * 4 ms of measured round trip to Redis, up to this; default 64. docs/performance.md, "Redis latency".
       */
      maxFetchConcurrency: z.number().int().min(1).max(256).default(64),
      /**
       * Threads that read slices (HTTP, JSON, validation, rows, chunk encoding) beside the thread that holds the DuckDB
       * writer; 0 reads them on the main thread. Default 0: docs/performance.md, "Fetch threads".
       */
      fetchThreads: z.number().int().min(0).max(16).default(0),
      /**
       * How long a slice waits out an API that answers nothing but 5xx, or nothing at all (a deployment, a gateway
       * restart), before its attempts are spent as for any other failure; default 10 minutes, 0 = not waited out.
       */
      outageToleranceMinutes: z.number().min(0).max(1440).default(10),
      /** Self-healing after each scheduled run (docs/healing.md); off when absent. */
      heal: healConfigSchema.optional(),
      /**
       * Fields of `_extra` held in a column of their own: `{ "<table>": { "<field>": "<type>" } }`; default none. The
       * writer checks them at open, adds each column and moves stored values in, no API call (docs/schema-drift.md).
       */
      promote: z
        .record(tableName, z.record(z.string().min(1, 'name the field as it appears in _extra'), promotedType))
        .default({}),
    })
    .strict();
}

/**
 * The writer's DuckDB budget, set rather than left to DuckDB's defaults (80 % of RAM, a thread per core), which suit a
 * database server, not a worker sharing a container (docs/operations.md, "Sizing a container").
 */
const warehouseConfigSchema = z
  .object({
    /** DuckDB's `memory_limit` in the worker that writes, e.g. `256MB`, `1GB`. Env `BVSYNC_DUCKDB_MEMORY_LIMIT`. */
    memoryLimit: z
      .string()
      .regex(/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, 'expected a size such as 256MB or 1GB')
      .default('160MB'),
    /** DuckDB's worker threads (DEFAULT_DUCKDB_BUDGET says why one). Env `BVSYNC_DUCKDB_THREADS`. */
    threads: z.number().int().min(1).max(64).default(1),
    /**
     * The writer's resident memory in MB above which it checkpoints and reopens DuckDB after a commit, which hands back
     * the blocks DuckDB cached; default `memoryLimit` plus 160 MB (313 MB by default), 0 = never (docs/operations.md).
     */
    reopenAboveMb: z.number().int().min(0).max(1_048_576).optional(),
  })
  .strict();

/** What is written after each publish besides the published DuckDB file (docs/lake.md). */
const publishConfigSchema = z
  .object({
    /**
     * A folder (a disk or a mounted bucket) that gets a Hive-partitioned Parquet copy of every table after each publish,
     * with a `_manifest.json`; default none.
     */
    parquet: z.string().min(1).transform(expandHome).optional(),
  })
  .strict();

/** The events a webhook can ask for (docs/operations.md, "Notifications"). */
export const NOTIFY_EVENTS = [
  'run_failed',
  'run_incomplete',
  'stale',
  'key_refused',
  'machine_fault',
  'verify_disagreement',
  'schema_drift',
] as const;

/**
 * One webhook of `notify.webhooks`. The URL is a secret (a Slack webhook's path is its credential): a config error
 * never quotes it, and it is never logged; logs name the webhook by its index.
 */
const webhookSchema = z
  .object({
    /** Where to POST; http or https. Give this or `urlFile`. */
    url: z
      .string()
      .refine((text) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol), {
        error: 'expected a URL that starts with http:// or https:// (not quoted: it is a secret)',
      })
      .optional(),
    /** A file holding the URL (a mounted secret), read at start; a file others may read gets a warning. */
    urlFile: z.string().min(1).transform(expandHome).optional(),
    /** The events sent to it; at least one. */
    events: z.array(z.enum(NOTIFY_EVENTS)).min(1, `name at least one event: ${NOTIFY_EVENTS.join(', ')}`),
    /** `json` (bvsync's versioned payload, default) or `slack` (a Slack-compatible `{"text": ...}`). */
    format: z.enum(['json', 'slack']).default('json'),
  })
  .strict()
  .refine((hook) => (hook.url === undefined) !== (hook.urlFile === undefined), {
    error: 'give the webhook either "url" or "urlFile", not both or neither',
  });

export const notifyConfigSchema = z
  .object({
    /** Webhooks told of failures; default none. */
    webhooks: z.array(webhookSchema).default([]),
    /** A brand and stream whose newest complete day is older than this is `stale`; default 48 hours. */
    staleAfterHours: z
      .number()
      .positive()
      .max(24 * 365)
      .default(48),
    /** The most time one notification may take, every retry included, and a command waits for it at exit; default 10 s. */
    deliverySeconds: z.number().positive().max(300).default(10),
  })
  .strict();

const metricsConfigSchema = z
  .object({
    /** A Prometheus Pushgateway (http://host:9091) that `sync` and `backfill` push their run's metrics to at the end; default none. */
    pushgateway: z
      .url({ protocol: /^https?$/, error: "expected the Pushgateway's URL, such as http://pushgateway:9091" })
      .optional(),
  })
  .strict();

/** The whole config's schema: the catalog's streams and parameter names in it, and `sync` as composed. */
export function composeConfigSchema<Name extends string, Sync extends z.ZodObject>(
  catalog: StreamCatalog<Name>,
  syncConfigSchema: Sync,
) {
  const apiConfigSchema = apiConfigSchemaFor(catalog);
  const scheduleSchema = scheduleSchemaFor(catalog.streamNames);
  return z
    .object({
      $schema: z.string().optional(),
      api: apiConfigSchema.default(apiConfigSchema.parse({})),
      /** Brand ids to sync (the API has no endpoint that lists brands). Env `BVSYNC_BRANDS=1,2,3`. */
      brands: z
        .array(z.number({ error: 'a brand id is a whole number, such as 7' }).int().positive(), {
          error: 'expected a list of brand ids, such as [7, 12] (BVSYNC_BRANDS: 7,12)',
        })
        .refine((brands) => new Set(brands).size === brands.length, 'a brand id is listed twice')
        .default([]),
      /** The published DuckDB file analysts open; the worker's working file sits beside it. Env `BVSYNC_DB`. */
      db: z.string().min(1).default('bvsync.duckdb').transform(expandHome),
      /**
       * The Redis address (a database index in it is honoured): redis://, rediss://, redis+sentinel://, redis+cluster://
       * or a unix socket's path. Env `REDIS_URL`. After parsing: the address every connection uses, `redis` folded in.
       */
      redisUrl: z
        .string()
        .min(1)
        // Not quoted back: it may hold a password. A typo (`redis//host`) is a config error, not a socket path.
        // test/config.test.ts.
        .refine((text) => redisAddressProblem(text) === undefined, {
          error: (issue) => redisAddressProblem(String(issue.input)) ?? 'not a Redis address',
        })
        .optional(),
      /** Sentinels, Cluster nodes, TLS: the Redis topology beyond one server (src/config/redis-settings.ts). Default none. */
      redis: redisConfigSchema.optional(),
      /** Prefix of every Redis key bvsync writes; default `bvsync`. On a Redis Cluster it needs a hash tag: `{bvsync}`. */
      redisPrefix: z.string().min(1).regex(REDIS_PREFIX_PATTERN, REDIS_PREFIX_RULE).default('bvsync'),
      // The generic `Sync` hides its output from zod's `default`, which takes what `parse` gives all the same.
      sync: syncConfigSchema.default(syncConfigSchema.parse({}) as never),
      warehouse: warehouseConfigSchema.default(warehouseConfigSchema.parse({})),
      /** What each publish writes besides the published file: `parquet`, a lake folder (docs/lake.md). Default none. */
      publish: publishConfigSchema.default(publishConfigSchema.parse({})),
      notify: notifyConfigSchema.default(notifyConfigSchema.parse({})),
      metrics: metricsConfigSchema.default(metricsConfigSchema.parse({})),
      /** Cron schedules of `bvsync scheduler`; default one daily run of every stream at 02:00 UTC. */
      schedules: z
        .array(scheduleSchema)
        .superRefine((schedules, ctx) => {
          const names = new Set<string>();
          schedules.forEach((schedule, index) => {
            if (names.has(schedule.name)) {
              ctx.addIssue({
                code: 'custom',
                path: [index, 'name'],
                message: `duplicate schedule name "${schedule.name}"`,
              });
            }
            names.add(schedule.name);
          });
        })
        .default([{ name: 'daily', cron: '0 2 * * *' }]),
    })
    .strict()
    .transform((config, ctx) => ({ ...config, redisUrl: checkRedisSettings(config, ctx) }));
}

export type ApiConfig = z.output<ReturnType<typeof apiConfigSchemaFor>>;
export type NotifyConfig = z.output<typeof notifyConfigSchema>;
export type WebhookConfig = NotifyConfig['webhooks'][number];
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];
