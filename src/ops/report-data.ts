import type { DuckDBConnection } from '@duckdb/node-api';
import { addDays, eachDay, maxDay, minDay, todayUtc } from '../days.js';
import { readRows, rowReader, type PlainRow } from '../warehouse/read-rows.js';
import { lastFinishedRun, syncedBrands } from '../warehouse/state/bookkeeping.js';
import { OWNERSHIP_ORDER, ownershipLabel, sortOwnerships } from './ownership-labels.js';
import { wilsonInterval } from './wilson-interval.js';

/** What the analysts' report covers. */
export interface ReportOptions {
  /** First day (`YYYY-MM-DD`, included); default 27 days before `to` (four weeks). */
  from?: string;
  /** Last day (included); default the newest complete day with visibility data (today's, still filling, left out). */
  to?: string;
  /** Brands to show; default every brand in the database. */
  brands?: number[];
  /** Today, UTC (`BVSYNC_TODAY` through the CLI); default the real one. */
  today?: string;
}

export interface ReportRun {
  runId: string;
  kind: string;
  status: string;
  finishedAt: string | null;
}

/** A proportion kept with its numerator and denominator, so windows add up exactly (never averaged rates). */
export interface Ratio {
  numerator: number;
  denominator: number;
  /** numerator / denominator; null when the denominator is 0 (no data). */
  value: number | null;
  /** Days of the period with data. */
  days: number;
}

/** The figures at the top of a brand: the window against the period of the same length just before it. */
export interface Headline {
  /** Answers that mention the brand / answers, over every topic and day of the window. */
  visibility: Ratio;
  previousVisibility: Ratio;
  /** The brand's mentions / the mentions of every brand named in the answers (v_share_of_voice_daily), over the window. */
  shareOfVoice: Ratio;
  previousShareOfVoice: Ratio;
  previousFrom: string;
  previousTo: string;
  /** Days in each period: the window and the period of the same length before it. */
  periodDays: number;
}

/** The days a chart's data covers in the window, and the brand's answers read on those days. */
export interface ChartCoverage {
  /** First and last day with data (`YYYY-MM-DD`); null when the chart has none in the window. */
  first: string | null;
  last: string | null;
  /** Days of the window with data for the chart. */
  days: number;
  /** Answers on those days: the headline's (v_visibility_topic_daily), or the chart's own count (tracked pages). */
  answers: number;
}

/** The report's charts, by the key of their data in a brand's section. */
export type ChartKey =
  | 'weeklyVisibility'
  | 'shareOfVoice'
  | 'citationsByOwnership'
  | 'topDomains'
  | 'rankMovers'
  | 'trackedUrls';

/** One brand's numbers for each chart of the report; each array is a chart's data, one object per mark. */
export interface BrandReport {
  brandId: number;
  /** The brand's own name as the visibility report gives it, when synced. */
  name: string | null;
  /** False when none of the brand's charts has a row in the window. */
  hasData: boolean;
  headline: Headline;
  /**
   * Visibility per topic and week (weeks from Monday, cut to the window; `days` those with data), summed from daily
   * numerators, with a Wilson 95% interval of the sums (wilson-interval.ts says why not the API's ci_lower/ci_upper).
   */
  weeklyVisibility: Array<{
    week: string;
    topic: string;
    days: number;
    conversations: number;
    mentioned: number;
    visibility: number | null;
    low: number | null;
    high: number | null;
  }>;
  /** Every day with data has every series (zero-filled), so stacked areas have no gaps. */
  shareOfVoice: Array<{ day: string; brand: string; own: boolean; mentioned: number; share: number | null }>;
  /** Zero-filled like share of voice; `label` is readable text, rows ordered by the one ownership order. */
  citationsByOwnership: Array<{ day: string; ownership: string; label: string; occurrences: number }>;
  topDomains: Array<{ domain: string; firstParty: boolean; occurrences: number }>;
  /**
   * `subject` says whose product it is: `brand` (the brand's own) or `competitor`. The brand's own products come first
   * (up to half the rows, moved or not), then the competitors' that moved most.
   */
  rankMovers: Array<{
    product: string;
    metric: string;
    subject: string;
    firstRank: number;
    lastRank: number;
    change: number;
  }>;
  trackedUrls: Array<{
    url: string;
    group: string | null;
    citations: number;
    conversations: number;
    citationRate: number | null;
  }>;
  /** What each chart covers, so the page can say it under the chart's title. */
  coverage: Record<ChartKey, ChartCoverage>;
}

export interface ReportData {
  generatedAt: string;
  database: string;
  from: string;
  to: string;
  /** Days from `from` to `to`, both included. */
  windowDays: number;
  lastRun: ReportRun | null;
  /** Brands with a section in the page: the ones asked for that the database knows. */
  brands: BrandReport[];
  /** Brands asked for (`--brand`) that the database has never synced: no section, a warning. */
  unknownBrands: number[];
  /** The brands the database has synced (from `_sync_state`). */
  knownBrands: number[];
  /** The one order (and colour index) of ownership values for every brand's chart: see ownership-labels.ts. */
  ownershipOrder: string[];
}

/** Competitors shown by name in share of voice; the rest are summed as "other brands" so the chart stays readable. */
const SHARE_OF_VOICE_NAMED = 5;
const TOP_DOMAINS = 15;
const RANK_MOVERS = 12;
const TOP_TRACKED_URLS = 15;

// Each query reads one brand and the window [$1, $2] through the published views where one answers the question.
const QUERIES = {
  // Weeks cut to the window, so the first and last points stand for the days read, not days outside it.
  weeklyVisibility: `
    SELECT greatest(CAST(date_trunc('week', "day") AS DATE), $1::DATE)::VARCHAR AS week,
           coalesce(topic_name, 'topic ' || topic_id) AS topic, count(*) AS days,
           sum(conversations) AS conversations, sum(mentioned_conversations) AS mentioned,
           sum(mentioned_conversations) / nullif(sum(conversations), 0) AS visibility
    FROM v_visibility_topic_daily WHERE brand_id = $3 AND "day" BETWEEN $1::DATE AND $2::DATE
    GROUP BY ALL ORDER BY week, topic`,
  // Share over the window decides which competitors are named; each day's share is recomputed from the numerators.
  shareOfVoice: `
    WITH windowed AS (
      SELECT * FROM v_share_of_voice_daily WHERE brand_id = $3 AND "day" BETWEEN $1::DATE AND $2::DATE
    ), named AS (
      SELECT brand_name FROM windowed GROUP BY brand_name
      ORDER BY bool_or(is_own_brand) DESC, sum(mentions) DESC LIMIT ${SHARE_OF_VOICE_NAMED + 1}
    ), grouped AS (
      SELECT "day", coalesce(n.brand_name, 'other brands') AS brand, bool_or(w.is_own_brand) AS own,
             sum(w.mentions) AS mentioned
      FROM windowed w LEFT JOIN named n USING (brand_name) GROUP BY ALL
    ), series AS (
      SELECT brand, bool_or(own) AS own, sum(mentioned) AS total FROM grouped GROUP BY brand
    ), filled AS (
      SELECT d."day", s.brand, s.own, s.total, coalesce(g.mentioned, 0) AS mentioned
      FROM (SELECT DISTINCT "day" FROM grouped) d CROSS JOIN series s
      LEFT JOIN grouped g ON g."day" = d."day" AND g.brand = s.brand
    )
    SELECT "day"::VARCHAR AS day, brand, own, mentioned,
           mentioned / nullif(sum(mentioned) OVER (PARTITION BY "day"), 0) AS share
    FROM filled ORDER BY day, own DESC, brand = 'other brands', total DESC, brand`,
  citationsByOwnership: `
    WITH windowed AS (
      SELECT "day", "value" AS ownership, coalesce(sum(occurrences), 0) AS occurrences
      FROM citation_daily WHERE brand_id = $3 AND dimension = 'ownership' AND "day" BETWEEN $1::DATE AND $2::DATE
      GROUP BY ALL
    )
    SELECT d."day"::VARCHAR AS day, o.ownership, coalesce(w.occurrences, 0) AS occurrences
    FROM (SELECT DISTINCT "day" FROM windowed) d CROSS JOIN (SELECT DISTINCT ownership FROM windowed) o
    LEFT JOIN windowed w ON w."day" = d."day" AND w.ownership = o.ownership
    ORDER BY day, ownership`,
  topDomains: `
    SELECT domain, coalesce(bool_or(is_first_party), false) AS "firstParty", sum(occurrences) AS occurrences
    FROM domain_daily WHERE brand_id = $3 AND "day" BETWEEN $1::DATE AND $2::DATE
    GROUP BY domain HAVING sum(occurrences) > 0 ORDER BY occurrences DESC, domain LIMIT ${TOP_DOMAINS}`,
  // A product's visibility rank on the first and last day of the window it was ranked in; positive change = moved up.
  // The brand's own products take up to half the rows whether they moved or not, competitors that moved the rest.
  rankMovers: `
    WITH ranked AS (
      SELECT metric, subject, product_id, any_value(title) AS title,
             arg_min("rank", "day") AS first_rank, arg_max("rank", "day") AS last_rank, count(*) AS days
      FROM product_ranking_daily
      WHERE brand_id = $3 AND metric = 'visibility' AND "day" BETWEEN $1::DATE AND $2::DATE AND "rank" IS NOT NULL
      GROUP BY ALL
    ), candidates AS (
      -- Two products of one title (and subject) would share a row of the chart: their id tells them apart.
      SELECT *, coalesce(title, 'product ' || product_id)
                  || CASE WHEN count(*) OVER (PARTITION BY subject, title) > 1 THEN ' (' || product_id || ')' ELSE '' END AS product,
             row_number() OVER (PARTITION BY subject = 'brand' ORDER BY abs(first_rank - last_rank) DESC, last_rank, title, product_id) AS place
      FROM ranked WHERE subject = 'brand' OR (days > 1 AND first_rank <> last_rank)
    ), own AS (
      SELECT least(count(*), ${RANK_MOVERS / 2}) AS shown FROM candidates WHERE subject = 'brand'
    )
    SELECT product, metric, subject, first_rank AS "firstRank", last_rank AS "lastRank", first_rank - last_rank AS change
    FROM candidates, own
    WHERE place <= CASE WHEN subject = 'brand' THEN own.shown ELSE ${RANK_MOVERS} - own.shown END
    ORDER BY subject = 'brand' DESC, place`,
  trackedUrls: `
    SELECT coalesce(u.url, 'tracked url ' || d.tracked_url_id) AS url, any_value(u.group_name) AS "group",
           sum(d.citations) AS citations, sum(d.conversations) AS conversations,
           sum(d.citations) / nullif(sum(d.conversations), 0) AS "citationRate"
    FROM tracked_url_daily d LEFT JOIN tracked_urls u ON u.brand_id = d.brand_id AND u.id = d.tracked_url_id
    WHERE d.brand_id = $3 AND d."day" BETWEEN $1::DATE AND $2::DATE
    GROUP BY ALL ORDER BY citations DESC, url LIMIT ${TOP_TRACKED_URLS}`,
} as const;

// Where each chart's days come from (its table or view, with the rows it draws), and its answers on those days: the
// brand's answers of v_visibility_topic_daily (the headline's), or the chart's own count where it shows one.
const BRAND_ANSWERS = `(SELECT coalesce(sum(conversations), 0) FROM v_visibility_topic_daily
  WHERE brand_id = $3 AND "day" IN (SELECT "day" FROM chart_days))`;
const COVERAGE_SOURCES: Record<ChartKey, { rows: string; answers: string }> = {
  weeklyVisibility: { rows: 'v_visibility_topic_daily WHERE', answers: BRAND_ANSWERS },
  shareOfVoice: { rows: 'v_share_of_voice_daily WHERE', answers: BRAND_ANSWERS },
  citationsByOwnership: { rows: "citation_daily WHERE dimension = 'ownership' AND", answers: BRAND_ANSWERS },
  topDomains: { rows: 'domain_daily WHERE', answers: BRAND_ANSWERS },
  rankMovers: { rows: "product_ranking_daily WHERE metric = 'visibility' AND", answers: BRAND_ANSWERS },
  // Every tracked page of a day counts the day's answers read: the "of N" beside its bars.
  trackedUrls: {
    rows: 'tracked_url_daily WHERE',
    answers: `(SELECT coalesce(sum(answers), 0) FROM (SELECT max(conversations) AS answers FROM tracked_url_daily
      WHERE brand_id = $3 AND "day" IN (SELECT "day" FROM chart_days) GROUP BY "day"))`,
  },
};

function coverageQuery(source: { rows: string; answers: string }): string {
  return `
    WITH chart_days AS (SELECT DISTINCT "day" FROM ${source.rows} brand_id = $3 AND "day" BETWEEN $1::DATE AND $2::DATE)
    SELECT min("day")::VARCHAR AS first, max("day")::VARCHAR AS last, count(*) AS days, ${source.answers} AS answers
    FROM chart_days`;
}

// The window [$1, $2] and the period of the same length before it [$4, $5], from the numerators of a view.
const headlineQuery = (view: string, numerator: string, denominator: string) => `
    SELECT coalesce(sum(${numerator}) FILTER (WHERE "day" >= $1::DATE), 0) AS numerator,
           coalesce(sum(${denominator}) FILTER (WHERE "day" >= $1::DATE), 0) AS denominator,
           coalesce(sum(${numerator}) FILTER (WHERE "day" <= $5::DATE), 0) AS "previousNumerator",
           coalesce(sum(${denominator}) FILTER (WHERE "day" <= $5::DATE), 0) AS "previousDenominator",
           count(DISTINCT "day") FILTER (WHERE "day" >= $1::DATE) AS days,
           count(DISTINCT "day") FILTER (WHERE "day" <= $5::DATE) AS "previousDays"
    FROM ${view} WHERE brand_id = $3 AND "day" BETWEEN $4::DATE AND $2::DATE`;
const HEADLINE_QUERIES = {
  visibility: headlineQuery('v_visibility_topic_daily', 'mentioned_conversations', 'conversations'),
  // Every brand named is a row of the view, so the sum of its mentions is the day's all_brand_mentions.
  shareOfVoice: headlineQuery('v_share_of_voice_daily', 'CASE WHEN is_own_brand THEN mentions ELSE 0 END', 'mentions'),
} as const;

function ratio(numerator: number, denominator: number, days: number): Ratio {
  return { numerator, denominator, value: denominator > 0 ? numerator / denominator : null, days };
}

async function readHeadline(
  connection: DuckDBConnection,
  from: string,
  to: string,
  brandId: number,
): Promise<Headline> {
  const days = eachDay(from, to).length;
  const previousFrom = addDays(from, -days);
  const previousTo = addDays(from, -1);
  const params = [from, to, brandId, previousFrom, previousTo];
  const [visibility] = numbers(await readRows(connection, HEADLINE_QUERIES.visibility, params));
  const [share] = numbers(await readRows(connection, HEADLINE_QUERIES.shareOfVoice, params));
  const now = (row?: PlainRow) =>
    ratio(Number(row?.numerator ?? 0), Number(row?.denominator ?? 0), Number(row?.days ?? 0));
  const before = (row?: PlainRow) =>
    ratio(Number(row?.previousNumerator ?? 0), Number(row?.previousDenominator ?? 0), Number(row?.previousDays ?? 0));
  return {
    visibility: now(visibility),
    previousVisibility: before(visibility),
    shareOfVoice: now(share),
    previousShareOfVoice: before(share),
    previousFrom,
    previousTo,
    periodDays: days,
  };
}

/**
 * Reads what the report shows from a published database (read-only): one section per brand, one dataset per chart,
 * all over one window of days.
 */
export async function readReportData(
  connection: DuckDBConnection,
  database: string,
  options: ReportOptions = {},
): Promise<ReportData> {
  const span = await readRows(
    connection,
    'SELECT min("day")::VARCHAR AS first, max("day")::VARCHAR AS last FROM visibility_topic_daily',
  );
  const first = span[0]?.first as string | null;
  const last = span[0]?.last as string | null;
  // The API adds to today's answers until the day ends (bvsync status calls it partial): a window ending on it drew a
  // last point of a few hours' answers beside whole days. Unless today is all there is.
  const today = options.today ?? todayUtc();
  const yesterday = addDays(today, -1);
  const to = options.to ?? (last ? (first && first > yesterday ? last : minDay(last, yesterday)) : today);
  // Four weeks by default, but not before the first synced day: the header then shows the days that have data.
  const from = options.from ?? maxDay(addDays(to, -27), first && first <= to ? first : addDays(to, -27));
  const bookkeeping = rowReader(connection);
  const known = await syncedBrands(bookkeeping);
  const asked = options.brands?.length ? [...new Set(options.brands)] : known;
  const unknownBrands = asked.filter((brandId) => !known.includes(brandId));
  const brandIds = asked.filter((brandId) => known.includes(brandId));
  const lastRun = (await lastFinishedRun(bookkeeping)) ?? null;
  const brands: BrandReport[] = [];
  for (const brandId of brandIds) {
    const params = [from, to, brandId];
    const read = (sql: string) => readRows(connection, sql, params);
    const chart = async <K extends ChartKey>(key: K) => numbers(await read(QUERIES[key])) as BrandReport[K];
    const own = await readRows(
      connection,
      'SELECT any_value(brand_name) AS name FROM visibility_topic_brand_daily WHERE brand_id = $1 AND is_own_brand',
      [brandId],
    );
    const weekly = await chart('weeklyVisibility');
    const ownership = numbers(await read(QUERIES.citationsByOwnership)) as Array<
      Omit<BrandReport['citationsByOwnership'][number], 'label'>
    >;
    const order = sortOwnerships(ownership.map((row) => row.ownership));
    const charts = {
      weeklyVisibility: weekly.map((row) => ({
        ...row,
        ...(wilsonInterval(row.mentioned, row.conversations) ?? { low: null, high: null }),
      })),
      shareOfVoice: await chart('shareOfVoice'),
      citationsByOwnership: ownership
        .map((row) => ({ ...row, label: ownershipLabel(row.ownership) }))
        .sort((a, b) => a.day.localeCompare(b.day) || order.indexOf(a.ownership) - order.indexOf(b.ownership)),
      topDomains: await chart('topDomains'),
      rankMovers: await chart('rankMovers'),
      trackedUrls: await chart('trackedUrls'),
    };
    const coverage = {} as Record<ChartKey, ChartCoverage>;
    for (const key of Object.keys(COVERAGE_SOURCES) as ChartKey[]) {
      const [row] = numbers(await read(coverageQuery(COVERAGE_SOURCES[key])));
      coverage[key] = {
        first: (row?.first as string | null) ?? null,
        last: (row?.last as string | null) ?? null,
        days: Number(row?.days ?? 0),
        answers: Number(row?.answers ?? 0),
      };
    }
    brands.push({
      brandId,
      name: (own[0]?.name as string | null) ?? null,
      hasData: Object.values(charts).some((rows) => rows.length > 0),
      headline: await readHeadline(connection, from, to, brandId),
      ...charts,
      coverage,
    });
  }
  return {
    generatedAt: new Date().toISOString(),
    database,
    from,
    to,
    windowDays: eachDay(from, to).length,
    lastRun,
    brands,
    unknownBrands,
    knownBrands: known,
    ownershipOrder: sortOwnerships([
      ...OWNERSHIP_ORDER,
      ...brands.flatMap((brand) => brand.citationsByOwnership.map((row) => row.ownership)),
    ]),
  };
}

// Sums of integers come back as HUGEINT or DECIMAL, which arrive as text or bigint; charts want plain numbers.
function numbers(rows: PlainRow[]): PlainRow[] {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [
        key,
        typeof value === 'bigint'
          ? Number(value)
          : typeof value === 'object' && value !== null && 'toDouble' in value
            ? (value as { toDouble(): number }).toDouble()
            : value,
      ]),
    ),
  );
}
