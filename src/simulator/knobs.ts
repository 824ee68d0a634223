import { z } from 'zod';
import { laterPagesSchema } from './faults/later-pages.js';
import { oddityKindSchema } from './faults/oddities.js';
import { DAY_PATTERN } from './sim-days.js';

export const FAULT_KINDS = ['5xx', 'reset', 'truncated', 'stall'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const DRY_RUN_ANSWERS = ['ids', 'null-ids', 'no-ids', 'zero-ids', 'info-only'] as const;
export type DryRunAnswer = (typeof DRY_RUN_ANSWERS)[number];

/**
 * What the sync must survive, all off by default. Set by flag at start, and at run time with
 * `POST /__admin/knobs` or `RunningSimulator.setKnobs()`.
 */
const knobsSchema = z
  .object({
    /** Delay before every API answer (ms); default 0. */
    latencyMs: z.number().int().min(0).max(600_000).default(0),
    /** Requests per second per API key (fixed one-second window); 0 (default) = unlimited. Over it: 429. */
    rateLimit: z.number().min(0).default(0),
    /** The Retry-After of a 429, in seconds; default 1. */
    retryAfterSeconds: z.number().int().min(0).max(3600).default(1),
    /** How Retry-After is written: `seconds` (default) or `http-date`. */
    retryAfterFormat: z.enum(['seconds', 'http-date']).default('seconds'),
    /**
     * Rate-limit headers on every answer while `rateLimit` is on: `none` (default, like the spec), `ietf` (draft 07's
     * `limit=` fields), `ietf-structured` (drafts 08+: `q`, `w`, `r`, `t`), `x-ratelimit`.
     */
    rateLimitHeaders: z.enum(['none', 'ietf', 'ietf-structured', 'x-ratelimit']).default('none'),
    /** How `X-RateLimit-Reset` is written: `delta-seconds` (default), `unix-seconds`, `unix-milliseconds`, `http-date`. */
    rateLimitReset: z
      .enum(['delta-seconds', 'unix-seconds', 'unix-milliseconds', 'http-date'])
      .default('delta-seconds'),
    /**
     * How `rateLimit` is counted: `fixed-window` (default; one-second windows) or `token-bucket` (a burst of one second's
     * requests, refilled continuously; its reset is its full-refill time).
     */
    rateLimitAlgorithm: z.enum(['fixed-window', 'token-bucket']).default('fixed-window'),
    /** Share of API requests that fail, 0..1; default 0. */
    faultRate: z.number().min(0).max(1).default(0),
    /** Kinds of failure drawn from (evenly); default all four. */
    faultKinds: z
      .array(z.enum(FAULT_KINDS))
      .min(1)
      .default([...FAULT_KINDS]),
    /** How long a `stall` fault holds a half-sent body before closing (ms); default 35,000. */
    stallMs: z.number().int().min(0).max(600_000).default(35_000),
    /** Share of each day's answers that arrive late, 0..1; default 0. */
    lateShare: z.number().min(0).max(1).default(0),
    /** Late answers arrive 1..lateDays days after their date; default 3. */
    lateDays: z.number().int().min(1).max(60).default(3),
    /** Share of records given unknown extra fields; default 0. */
    extraFieldShare: z.number().min(0).max(1).default(0),
    /** Share of records given an enum value the spec does not list; default 0. */
    unknownEnumShare: z.number().min(0).max(1).default(0),
    /** Share of records made invalid (wrong type, missing required field, bad date); default 0. */
    invalidShare: z.number().min(0).max(1).default(0),
    /** Odd but schema-valid answers of list reads (see `oddities.ts`); default none. */
    oddities: z.array(oddityKindSchema).default([]),
    /** Reject query parameters an endpoint does not know with 400 (default true), so a wrong mapping shows. */
    strictParams: z.boolean().default(true),
    /** With `strictParams`, the 400 of an unknown name lists the names the endpoint knows, as some APIs do; default false. */
    unknownParamsListed: z.boolean().default(false),
    /**
     * Endpoints the key may not read, by the end of their path after `/brands/{id}/` (e.g. `products/ranking`): answered
     * 403 `forbidden`, as a plan without the feature might be (the spec shows neither that code nor its status); default none.
     */
    refusedPaths: z.array(z.string().min(1)).default([]),
    /**
     * Endpoints answered 404 `not_found`, by the end of their path as `refusedPaths`: an API without them, or whose path
     * for them is another than the spec's; default none.
     */
    missingPaths: z.array(z.string().min(1)).default([]),
    /** Bulk writes ignore `dry_run` and write, as an API reading it under another name or place would; default false. */
    dryRunIgnored: z.boolean().default(false),
    /**
     * How a bulk dry run answers its items (the spec shows only the envelope): `ids` (default, the ids it would give),
     * `null-ids` (`id: null`), `no-ids` (no `id`), `zero-ids` (`id: 0`), or `info-only` (no `data`, only `info` and `rejected`).
     */
    dryRunAnswer: z.enum(DRY_RUN_ANSWERS).default('ids'),
    /** Writes that are not dry runs answered before every later one is answered 503 (counted from when it is set); -1, the default, for all. */
    realWritesAnswered: z.number().int().min(-1).default(-1),
    /**
     * The key's quota is spent: every API request is answered 429 `monthly_quota_exceeded` with a `Retry-After` of a
     * day; default false.
     */
    quotaSpent: z.boolean().default(false),
    /**
     * Requests each API key is served per UTC day of the simulator's clock; past it, 429 `daily_quota_exceeded` with a
     * `Retry-After` of the seconds left in the day. 0 (default): no daily quota.
     */
    dailyQuota: z.number().int().min(0).default(0),
    /**
     * An engine id the API does not know in an `engines` filter: refused with 400 (`refuse`, default), or dropped, the
     * endpoint's default engines applied when none is left and echoed in `info.query` (`default`), as an API may.
     */
    unknownEngines: z.enum(['refuse', 'default']).default('refuse'),
    /** The reports' `info.query` repeats the request as received, names it does not read included; default false. */
    echoMirror: z.boolean().default(false),
    /** An end day is read as the instant it begins, so the range leaves it out (against the spec); default false. */
    endDayLeftOut: z.boolean().default(false),
    /**
     * The API is away: every API request is answered 503 with a `Retry-After` of a second (`503`), closed unanswered
     * (`reset`), or held unanswered until the client gives up (`hang`); default `off`.
     */
    unavailable: z.enum(['off', '503', 'reset', 'hang']).default('off'),
    /**
     * Days (`YYYY-MM-DD`) whose conversations a range of more than one day counts once more in `info.total_rows`
     * than it lists: range answers that disagree with their days forever, whatever is re-read; default none.
     */
    rangeSurplusDays: z.array(z.string().regex(DAY_PATTERN, 'expected a day as YYYY-MM-DD')).default([]),
    /** The number of the first page: 1 (default), or 0 as an API counting from 0 (the spec does not say). */
    firstPage: z.union([z.literal(0), z.literal(1)]).default(1),
    /**
     * A date-only range bound is that day of a zone this many hours from UTC (-5: New York in winter), echoed as sent:
     * an API whose days are not the spec's UTC days; default 0.
     */
    dayZoneHours: z.number().int().min(-14).max(14).default(0),
    /**
     * How list reads answer their pages after the first: `json` (default), or what bvsync cannot read: a 200 HTML page
     * (`html`), JSON cut in half (`cut_json`), `data: null` (`null_data`). See `later-pages.ts`.
     */
    laterPages: laterPagesSchema.default('json'),
  })
  .strict();

export type Knobs = z.infer<typeof knobsSchema>;

export const DEFAULT_KNOBS: Knobs = knobsSchema.parse({});

/** Validates a partial set of knobs; throws a readable message listing every problem. */
export function parseKnobs(input: unknown): Partial<Knobs> {
  const result = knobsSchema.safeParse(input);
  if (!result.success) {
    throw new Error(
      result.error.issues.map((issue) => `${issue.path.join('.') || 'knobs'}: ${issue.message}`).join('; '),
    );
  }
  // The schema fills in the defaults of the knobs not given: keep only those given.
  const given = input as Record<string, unknown>;
  return Object.fromEntries(Object.entries(result.data).filter(([key]) => given[key] !== undefined));
}
