import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { readNumberedSqlFiles } from '../../src/warehouse/sql-files.js';
import { fileURLToPath } from 'node:url';
import { openPublished, type PublishedReader } from '../support/published-reader.js';
import { tempDir } from '../support/tmp.js';
import { sliceBatch } from './batches.js';

// A small hand-made dataset whose answers are worked out by hand in each test below; the views are read
// from the published copy, as an analyst would.
const tmp = tempDir('views');
const published = join(tmp.path, 'bv.duckdb');
let reader: PublishedReader | undefined;
const rows = (sql: string) => reader!.rows(sql);
const QUERIES_DIR = fileURLToPath(new URL('../../sql/queries/', import.meta.url));

beforeAll(async () => {
  const wh = await openWarehouse(join(tmp.path, 'bv.work.duckdb'));
  const load = (table: string, scope: Record<string, string | number>, data: Record<string, unknown>[]) =>
    wh.loadSlice(
      sliceBatch({
        sliceKey: `${table}-${JSON.stringify(scope)}`,
        writes: [{ table, mode: 'replace', scope, rows: data as never }],
      }),
    );
  await wh.loadSlice(
    sliceBatch({
      writes: [
        {
          table: 'topics',
          mode: 'merge',
          rows: [
            { id: 1, name: 'Shoes' },
            { id: 2, name: 'Socks' },
          ],
        },
      ],
    }),
  );
  await load('visibility_topic_daily', { topic_id: 1 }, [
    { day: '2026-11-16', topic_id: 1, conversations: 10, mentioned_conversations: 3, visibility: 0.3 },
    { day: '2026-11-17', topic_id: 1, conversations: 30, mentioned_conversations: 15, visibility: 0.5 },
    { day: '2026-11-23', topic_id: 1, conversations: 4, mentioned_conversations: 1, visibility: 0.25 },
  ]);
  await load('visibility_topic_brand_daily', { day: '2026-11-16' }, [
    {
      day: '2026-11-16',
      topic_id: 1,
      brand_name: 'Own',
      is_own_brand: true,
      conversations: 10,
      mentioned_conversations: 3,
    },
    {
      day: '2026-11-16',
      topic_id: 1,
      brand_name: 'CompA',
      is_own_brand: false,
      conversations: 10,
      mentioned_conversations: 6,
    },
    {
      day: '2026-11-16',
      topic_id: 1,
      brand_name: 'CompB',
      is_own_brand: false,
      conversations: 10,
      mentioned_conversations: 1,
    },
    {
      day: '2026-11-16',
      topic_id: 2,
      brand_name: 'Own',
      is_own_brand: true,
      conversations: 20,
      mentioned_conversations: 4,
    },
    {
      day: '2026-11-16',
      topic_id: 2,
      brand_name: 'CompA',
      is_own_brand: false,
      conversations: 20,
      mentioned_conversations: 6,
    },
  ]);
  await load('citation_daily', { dimension: 'ownership' }, [
    { day: '2026-11-16', dimension: 'ownership', value: 'first_party', occurrences: 5 },
    { day: '2026-11-16', dimension: 'ownership', value: 'third_party_editorial', occurrences: 15 },
    { day: '2026-11-18', dimension: 'ownership', value: 'first_party', occurrences: 5 },
    { day: '2026-11-23', dimension: 'ownership', value: 'first_party', occurrences: 2 },
  ]);
  await load('citation_daily', { dimension: 'all' }, [
    { day: '2026-11-16', dimension: 'all', value: '', occurrences: 999 },
  ]);
  await load('domain_daily', { domain: 'a.com' }, [
    { domain: 'a.com', day: '2026-11-20', is_first_party: true, occurrences: 5, cited_occurrences: 4 },
    { domain: 'a.com', day: '2026-11-14', is_first_party: true, occurrences: 3, cited_occurrences: 3 },
    { domain: 'a.com', day: '2026-11-10', is_first_party: true, occurrences: 4, cited_occurrences: 1 },
  ]);
  await load('domain_daily', { domain: 'b.com' }, [
    { domain: 'b.com', day: '2026-11-19', is_first_party: false, occurrences: 10, cited_occurrences: 9 },
    { domain: 'b.com', day: '2026-11-12', is_first_party: false, occurrences: 20, cited_occurrences: 2 },
  ]);
  const product = (day: string, id: number, rank: number) => ({
    day,
    metric: 'visibility',
    subject: 'brand',
    product_id: id,
    rank,
    title: `P${id}`,
    visibility: 1 / rank,
  });
  await load('product_ranking_daily', { metric: 'visibility' }, [
    product('2026-11-19', 1, 1),
    product('2026-11-19', 2, 2),
    product('2026-11-20', 1, 2),
    product('2026-11-20', 2, 1),
    product('2026-11-20', 3, 3),
  ]);
  await wh.loadSlice(
    sliceBatch({
      writes: [{ table: 'tracked_urls', mode: 'merge', rows: [{ id: 100, url: 'https://x.test/a', title: 'A' }] }],
    }),
  );
  await load('tracked_url_daily', { brand_id: 7 }, [
    { tracked_url_id: 100, day: '2026-11-18', citations: 1, conversations: 5, first_cited: '2026-11-18T09:00:00Z' },
    { tracked_url_id: 100, day: '2026-11-19', citations: 2, conversations: 10, first_cited: '2026-11-19T08:00:00Z' },
    { tracked_url_id: 100, day: '2026-11-20', citations: 0, conversations: 10 },
    { tracked_url_id: 101, day: '2026-11-20', citations: 4, conversations: 10, first_cited: '2026-11-20T01:00:00Z' },
  ]);
  // Answers naming the own brand, a confirmed and a suggested competitor and a brand that is neither; one answer today.
  const today = new Date().toISOString().slice(0, 10);
  const answer = (id: number, day: string) => ({ id, day, date: `${day}T10:00:00Z`, model: 'e1' });
  await load('conversations', { brand_id: 7 }, [
    answer(1, '2026-11-16'),
    answer(2, '2026-11-16'),
    answer(3, '2026-11-16'),
    answer(4, today),
  ]);
  const named = (conversation_id: number, ordinal: number, day: string, name: string) => ({
    conversation_id,
    ordinal,
    day,
    name,
    is_own_brand: name === 'Own',
  });
  await load('conversation_brands', { brand_id: 7 }, [
    named(1, 0, '2026-11-16', 'Own'),
    named(1, 1, '2026-11-16', 'CompA'),
    named(2, 0, '2026-11-16', 'CompA'),
    named(2, 1, '2026-11-16', 'Sugg'),
    named(3, 0, '2026-11-16', 'Other'),
    named(4, 0, today, 'Own'),
  ]);
  await wh.loadSlice(
    sliceBatch({
      writes: [
        {
          table: 'competitors',
          mode: 'merge',
          rows: [
            { id: 1, name: 'CompA', is_actual: true },
            { id: 2, name: 'sugg', is_actual: false },
          ],
        },
      ],
    }),
  );
  await wh.publish(published);
  await wh.close();

  reader = await openPublished(published);
});

afterAll(() => {
  reader?.close();
  tmp.remove();
});

describe('analyst views in the published copy', () => {
  it('v_visibility_topic_daily keeps the numerator and names the topic', async () => {
    const result = await rows(`SELECT CAST("day" AS VARCHAR) AS day, topic_name, visibility, mentioned_conversations
                               FROM v_visibility_topic_daily ORDER BY day`);
    expect(result).toEqual([
      { day: '2026-11-16', topic_name: 'Shoes', visibility: 0.3, mentioned_conversations: 3 },
      { day: '2026-11-17', topic_name: 'Shoes', visibility: 0.5, mentioned_conversations: 15 },
      { day: '2026-11-23', topic_name: 'Shoes', visibility: 0.25, mentioned_conversations: 1 },
    ]);
  });

  it('v_visibility_topic_weekly is exact (18/40), not the mean of daily rates (0.4)', async () => {
    const result = await rows(`SELECT CAST(week_start AS VARCHAR) AS week, days, conversations, visibility
                               FROM v_visibility_topic_weekly ORDER BY week`);
    expect(result).toEqual([
      { week: '2026-11-16', days: 2, conversations: 40, visibility: 0.45 },
      { week: '2026-11-23', days: 1, conversations: 4, visibility: 0.25 },
    ]);
  });

  it("v_share_of_voice_daily divides each brand's mentions by every brand's in the answers, and says its kind", async () => {
    const result =
      await rows(`SELECT "day"::VARCHAR AS day, brand_name, brand_kind, mentions, all_brand_mentions, share_of_voice
                               FROM v_share_of_voice_daily ORDER BY share_of_voice DESC, brand_name`);
    expect(result).toEqual([
      {
        day: '2026-11-16',
        brand_name: 'CompA',
        brand_kind: 'tracked competitor',
        mentions: 2,
        all_brand_mentions: 5,
        share_of_voice: 0.4,
      },
      {
        day: '2026-11-16',
        brand_name: 'Other',
        brand_kind: 'other brand',
        mentions: 1,
        all_brand_mentions: 5,
        share_of_voice: 0.2,
      },
      {
        day: '2026-11-16',
        brand_name: 'Own',
        brand_kind: 'own',
        mentions: 1,
        all_brand_mentions: 5,
        share_of_voice: 0.2,
      },
      {
        day: '2026-11-16',
        brand_name: 'Sugg',
        brand_kind: 'suggested competitor',
        mentions: 1,
        all_brand_mentions: 5,
        share_of_voice: 0.2,
      },
    ]);
    // Today is partial: only the view that says so holds it.
    const withToday = await rows(
      'SELECT count(DISTINCT "day")::INTEGER AS days FROM v_share_of_voice_daily_including_today',
    );
    expect(withToday).toEqual([{ days: 2 }]);
  });

  it('week-over-week views compare each week with the one before, from the weekly numerators', async () => {
    expect(
      await rows(`SELECT week_start::VARCHAR AS week, days, visibility, previous_visibility, round(change, 6) AS change
                       FROM v_topic_visibility_wow WHERE topic_id = 1 ORDER BY week`),
    ).toEqual([
      { week: '2026-11-16', days: 2, visibility: 0.45, previous_visibility: null, change: null },
      { week: '2026-11-23', days: 1, visibility: 0.25, previous_visibility: 0.45, change: -0.2 },
    ]);
    expect(
      await rows(`SELECT domain, week_start::VARCHAR AS week, occurrences, previous_occurrences, change
                       FROM v_domain_citations_wow WHERE week_start = '2026-11-16' ORDER BY domain`),
    ).toEqual([
      { domain: 'a.com', week: '2026-11-16', occurrences: 5, previous_occurrences: 7, change: -2 },
      { domain: 'b.com', week: '2026-11-16', occurrences: 10, previous_occurrences: 20, change: -10 },
    ]);
    // The first week has no week before: no change, rather than a change from zero.
    expect(await rows(`SELECT DISTINCT previous_share_of_voice, change FROM v_share_of_voice_wow`)).toEqual([
      { previous_share_of_voice: null, change: null },
    ]);
  });

  it('v_citations_by_ownership_weekly sums the ownership series per Monday week and ignores the others', async () => {
    const result = await rows(`SELECT CAST(week_start AS VARCHAR) AS week, ownership, days, occurrences, share
                               FROM v_citations_by_ownership_weekly ORDER BY week, ownership`);
    expect(result).toEqual([
      { week: '2026-11-16', ownership: 'first_party', days: 2, occurrences: 10, share: 0.4 },
      { week: '2026-11-16', ownership: 'third_party_editorial', days: 1, occurrences: 15, share: 0.6 },
      { week: '2026-11-23', ownership: 'first_party', days: 1, occurrences: 2, share: 1 },
    ]);
  });

  it('v_top_cited_domains compares the 7 days up to the latest day with the 7 before', async () => {
    const result =
      await rows(`SELECT domain, occurrences, occurrences_last_7d, occurrences_prev_7d, trend, trend_ratio, rank_last_7d
                               FROM v_top_cited_domains ORDER BY rank_last_7d`);
    expect(result).toEqual([
      {
        domain: 'b.com',
        occurrences: 30,
        occurrences_last_7d: 10,
        occurrences_prev_7d: 20,
        trend: -10,
        trend_ratio: -0.5,
        rank_last_7d: 1,
      },
      {
        domain: 'a.com',
        occurrences: 12,
        occurrences_last_7d: 8,
        occurrences_prev_7d: 4,
        trend: 4,
        trend_ratio: 1,
        rank_last_7d: 2,
      },
    ]);
  });

  it('v_product_rank_changes tells up, down, new, and days whose previous day was never synced', async () => {
    const result =
      await rows(`SELECT CAST("day" AS VARCHAR) AS day, product_id, rank, previous_rank, rank_change, movement
                               FROM v_product_rank_changes ORDER BY day, product_id`);
    expect(result).toEqual([
      {
        day: '2026-11-19',
        product_id: 1,
        rank: 1,
        previous_rank: null,
        rank_change: null,
        movement: 'no_previous_day',
      },
      {
        day: '2026-11-19',
        product_id: 2,
        rank: 2,
        previous_rank: null,
        rank_change: null,
        movement: 'no_previous_day',
      },
      { day: '2026-11-20', product_id: 1, rank: 2, previous_rank: 1, rank_change: -1, movement: 'down' },
      { day: '2026-11-20', product_id: 2, rank: 1, previous_rank: 2, rank_change: 1, movement: 'up' },
      { day: '2026-11-20', product_id: 3, rank: 3, previous_rank: null, rank_change: null, movement: 'new' },
    ]);
  });

  it('v_tracked_url_performance sums citations and conversations and keeps pages no longer tracked', async () => {
    const result = await rows(`SELECT tracked_url_id, url, days, citations, conversations, citation_rate, first_cited,
                                      CAST(last_cited_day AS VARCHAR) AS last_cited_day
                               FROM v_tracked_url_performance ORDER BY tracked_url_id`);
    expect(result).toEqual([
      {
        tracked_url_id: 100,
        url: 'https://x.test/a',
        days: 3,
        citations: 3,
        conversations: 25,
        citation_rate: 0.12,
        first_cited: '2026-11-18T09:00:00.000Z',
        last_cited_day: '2026-11-19',
      },
      {
        tracked_url_id: 101,
        url: null,
        days: 1,
        citations: 4,
        conversations: 10,
        citation_rate: 0.4,
        first_cited: '2026-11-20T01:00:00.000Z',
        last_cited_day: '2026-11-20',
      },
    ]);
  });

  it('answers every example question of sql/queries without error', async () => {
    const queries = readNumberedSqlFiles(QUERIES_DIR);
    expect(queries.length).toBeGreaterThan(0);
    for (const query of queries) {
      await expect(rows(query.text), query.name).resolves.toBeInstanceOf(Array);
    }
    const [visibility] = await rows(queries.find((q) => q.name.startsWith('01_'))!.text);
    expect(visibility).toMatchObject({ topic_name: 'Shoes', conversations: 44, visibility: 19 / 44 });
  });
});
