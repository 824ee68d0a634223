import type { DuckDBConnection } from '@duckdb/node-api';
import { addDays, maxDay } from '../days.js';
import { readRows, type PlainRow } from '../warehouse/read-rows.js';

/** What the analysts' report covers. */
export interface ReportOptions {
  /** First day (`YYYY-MM-DD`, included); default 27 days before `to` (four weeks). */
  from?: string;
  /** Last day (included); default the newest day with visibility data. */
  to?: string;
  /** Brands to show; default every brand in the database. */
  brands?: number[];
}

export interface ReportRun {
  runId: string;
  kind: string;
  status: string;
  finishedAt: string | null;
}

/** One brand's numbers for each chart of the report; each array is a chart's data, one object per mark. */
export interface BrandReport {
  brandId: number;
  /** The brand's own name as the visibility report gives it, when synced. */
  name: string | null;
  visibility: Array<{ day: string; topic: string; conversations: number; mentioned: number; visibility: number | null }>;
  shareOfVoice: Array<{ day: string; brand: string; own: boolean; mentioned: number; share: number | null }>;
  citationsByOwnership: Array<{ day: string; ownership: string; occurrences: number }>;
  topDomains: Array<{ domain: string; firstParty: boolean; occurrences: number }>;
  rankMovers: Array<{ product: string; metric: string; subject: string; firstRank: number; lastRank: number; change: number }>;
  trackedUrls: Array<{ url: string; group: string | null; citations: number; conversations: number; citationRate: number | null }>;
}

export interface ReportData {
  generatedAt: string;
  database: string;
  from: string;
  to: string;
  lastRun: ReportRun | null;
  brands: BrandReport[];
}

/** Competitors shown by name in share of voice; the rest are summed as "other brands" so the chart stays readable. */
const SHARE_OF_VOICE_NAMED = 5;
const TOP_DOMAINS = 15;
const RANK_MOVERS = 12;
const TOP_TRACKED_URLS = 15;

// Each query reads one brand and the window [$1, $2] through the published views where one answers the question.
const QUERIES = {
  visibility: `
    SELECT "day"::VARCHAR AS day, coalesce(topic_name, 'topic ' || topic_id) AS topic,
           conversations, mentioned_conversations AS mentioned, visibility
    FROM v_visibility_topic_daily WHERE brand_id = $3 AND "day" BETWEEN $1::DATE AND $2::DATE ORDER BY day, topic`,
  // Share over the window decides which competitors are named; each day's share is recomputed from the numerators.
  shareOfVoice: `
    WITH windowed AS (
      SELECT * FROM v_share_of_voice_daily WHERE brand_id = $3 AND "day" BETWEEN $1::DATE AND $2::DATE
    ), named AS (
      SELECT brand_name FROM windowed GROUP BY brand_name
      ORDER BY bool_or(is_own_brand) DESC, sum(mentioned_conversations) DESC LIMIT ${SHARE_OF_VOICE_NAMED + 1}
    ), grouped AS (
      SELECT "day", coalesce(n.brand_name, 'other brands') AS brand, bool_or(w.is_own_brand) AS own,
             sum(w.mentioned_conversations) AS mentioned
      FROM windowed w LEFT JOIN named n USING (brand_name) GROUP BY ALL
    )
    SELECT "day"::VARCHAR AS day, brand, own, mentioned,
           mentioned / nullif(sum(mentioned) OVER (PARTITION BY "day"), 0) AS share
    FROM grouped ORDER BY day, own DESC, mentioned DESC`,
  citationsByOwnership: `
    SELECT "day"::VARCHAR AS day, "value" AS ownership, sum(occurrences) AS occurrences
    FROM citation_daily WHERE brand_id = $3 AND dimension = 'ownership' AND "day" BETWEEN $1::DATE AND $2::DATE
    GROUP BY ALL ORDER BY day, ownership`,
  topDomains: `
    SELECT domain, coalesce(bool_or(is_first_party), false) AS "firstParty", sum(occurrences) AS occurrences
    FROM domain_daily WHERE brand_id = $3 AND "day" BETWEEN $1::DATE AND $2::DATE
    GROUP BY domain HAVING sum(occurrences) > 0 ORDER BY occurrences DESC, domain LIMIT ${TOP_DOMAINS}`,
  // A mover's visibility rank on the first and last day of the window it was ranked in; positive change = moved up.
  rankMovers: `
    WITH ranked AS (
      SELECT metric, subject, product_id, any_value(title) AS title,
             arg_min("rank", "day") AS first_rank, arg_max("rank", "day") AS last_rank, count(*) AS days
      FROM product_ranking_daily
      WHERE brand_id = $3 AND metric = 'visibility' AND "day" BETWEEN $1::DATE AND $2::DATE AND "rank" IS NOT NULL
      GROUP BY ALL
    )
    SELECT coalesce(title, 'product ' || product_id) AS product, metric, subject,
           first_rank AS "firstRank", last_rank AS "lastRank", first_rank - last_rank AS change
    FROM ranked WHERE days > 1 AND first_rank <> last_rank
    ORDER BY abs(first_rank - last_rank) DESC, last_rank, product LIMIT ${RANK_MOVERS}`,
  trackedUrls: `
    SELECT coalesce(u.url, 'tracked url ' || d.tracked_url_id) AS url, any_value(u.group_name) AS "group",
           sum(d.citations) AS citations, sum(d.conversations) AS conversations,
           sum(d.citations) / nullif(sum(d.conversations), 0) AS "citationRate"
    FROM tracked_url_daily d LEFT JOIN tracked_urls u ON u.brand_id = d.brand_id AND u.id = d.tracked_url_id
    WHERE d.brand_id = $3 AND d."day" BETWEEN $1::DATE AND $2::DATE
    GROUP BY ALL ORDER BY citations DESC, url LIMIT ${TOP_TRACKED_URLS}`,
} as const;

/**
 * Reads what the report shows from a published database (read-only): one section per brand, one dataset per chart,
 * all over one window of days.
 */
export async function readReportData(connection: DuckDBConnection, database: string, options: ReportOptions = {}): Promise<ReportData> {
  const span = await readRows(connection, 'SELECT min("day")::VARCHAR AS first, max("day")::VARCHAR AS last FROM visibility_topic_daily');
  const to = options.to ?? (span[0]?.last as string | null) ?? new Date().toISOString().slice(0, 10);
  const first = span[0]?.first as string | null;
  // Four weeks by default, but not before the first synced day: the header then shows the days that have data.
  const from = options.from ?? maxDay(addDays(to, -27), first && first <= to ? first : addDays(to, -27));
  const known = await readRows(connection, 'SELECT DISTINCT brand_id FROM _sync_state ORDER BY brand_id');
  const brandIds = options.brands?.length ? options.brands : known.map((row) => Number(row.brand_id));
  const runs = await readRows(
    connection,
    `SELECT run_id, kind, status, finished_at FROM _sync_runs WHERE finished_at IS NOT NULL ORDER BY finished_at DESC LIMIT 1`,
  );
  const brands: BrandReport[] = [];
  for (const brandId of brandIds) {
    const params = [from, to, brandId];
    const read = (sql: string) => readRows(connection, sql, params);
    const own = await readRows(connection, 'SELECT any_value(brand_name) AS name FROM visibility_topic_brand_daily WHERE brand_id = $1 AND is_own_brand', [brandId]);
    brands.push({
      brandId,
      name: (own[0]?.name as string | null) ?? null,
      visibility: numbers(await read(QUERIES.visibility)) as BrandReport['visibility'],
      shareOfVoice: numbers(await read(QUERIES.shareOfVoice)) as BrandReport['shareOfVoice'],
      citationsByOwnership: numbers(await read(QUERIES.citationsByOwnership)) as BrandReport['citationsByOwnership'],
      topDomains: numbers(await read(QUERIES.topDomains)) as BrandReport['topDomains'],
      rankMovers: numbers(await read(QUERIES.rankMovers)) as BrandReport['rankMovers'],
      trackedUrls: numbers(await read(QUERIES.trackedUrls)) as BrandReport['trackedUrls'],
    });
  }
  const run = runs[0];
  return {
    generatedAt: new Date().toISOString(),
    database,
    from,
    to,
    lastRun: run ? { runId: String(run.run_id), kind: String(run.kind), status: String(run.status), finishedAt: (run.finished_at as string | null) ?? null } : null,
    brands,
  };
}

// Sums of integers come back as HUGEINT or DECIMAL, which arrive as text or bigint; charts want plain numbers.
function numbers(rows: PlainRow[]): PlainRow[] {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [key, typeof value === 'bigint' ? Number(value) : typeof value === 'object' && value !== null && 'toDouble' in value ? (value as { toDouble(): number }).toDouble() : value]),
    ),
  );
}
