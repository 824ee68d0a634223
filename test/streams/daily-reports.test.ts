import { describe, expect, it } from 'vitest';
import { domainDetails } from '../../src/streams/domain-details.js';
import { mentionedConversations } from '../../src/streams/measures.js';
import { productRanking } from '../../src/streams/product-ranking.js';
import { trackedUrls } from '../../src/streams/tracked-urls.js';
import { visibility } from '../../src/streams/visibility.js';
import { BRAND, daySlice, outsideScope, pagedMethod, planInput, readSlice, scopes } from './harness.js';

const DAY = '2026-11-20';
const ci = (lower: number, upper: number) => ({ lower, upper });

describe('tracked_urls', () => {
  it('plans one slice per day', () => {
    const slices = trackedUrls.slices(planInput(['2026-11-19', DAY]));
    expect(slices.map((s) => s.key)).toEqual(['2026-11-19', DAY]);
    expect(slices[1]).toMatchObject({ day: DAY, from: DAY, to: DAY });
  });

  it('splits a page into the dimension, the day facts and the totals from info, asking for that one day', async () => {
    const calls: unknown[][] = [];
    const client = {
      trackedUrls: pagedMethod(
        [
          {
            records: [
              {
                id: 11,
                url: 'https://acme.test/a',
                title: 'A',
                created_at: '2026-10-01T08:00:00Z',
                citations: 3,
                conversations: 40,
                citation_rate: 0.075,
                first_cited: '2026-11-20T01:02:03Z',
                group: { id: 2, name: 'Blog', colour: 'teal' },
                surprise: 'kept',
              },
              {
                id: 12,
                url: 'https://acme.test/b',
                title: 'B',
                created_at: '2026-10-02T08:00:00Z',
                citations: 0,
                conversations: 40,
                citation_rate: 0,
              },
            ],
            info: { citations: 3, cited_urls: 1, page: 1, page_size: 100, total_rows: 2, new_counter: 5 },
          },
        ],
        calls,
      ),
    };
    const { tables, result } = await readSlice(trackedUrls, daySlice(DAY), client);
    expect(result.status).toBe('complete');
    expect(calls[0]).toMatchObject([BRAND, { startDate: DAY, endDate: DAY }]);
    expect(tables.tracked_urls).toEqual([
      {
        brand_id: BRAND,
        id: 11,
        url: 'https://acme.test/a',
        title: 'A',
        created_at: '2026-10-01T08:00:00Z',
        group_id: 2,
        group_name: 'Blog',
        _extra: { surprise: 'kept', group: { colour: 'teal' } },
      },
      {
        brand_id: BRAND,
        id: 12,
        url: 'https://acme.test/b',
        title: 'B',
        created_at: '2026-10-02T08:00:00Z',
        group_id: null,
        group_name: null,
        _extra: null,
      },
    ]);
    expect(tables.tracked_url_daily![0]).toEqual({
      brand_id: BRAND,
      tracked_url_id: 11,
      day: DAY,
      citations: 3,
      conversations: 40,
      citation_rate: 0.075,
      first_cited: '2026-11-20T01:02:03Z',
      // The day's own copy of what the spec does not name: the page's row keeps only the last day's.
      _extra: { surprise: 'kept', group: { colour: 'teal' } },
    });
    expect(tables.tracked_url_daily![1]!.first_cited).toBeNull();
    expect(tables.tracked_url_daily![1]!._extra).toBeNull();
    expect(tables.tracked_url_daily_totals).toEqual([
      { brand_id: BRAND, day: DAY, citations: 3, cited_urls: 1, total_rows: 2, _extra: { new_counter: 5 } },
    ]);
    expect(outsideScope(trackedUrls, daySlice(DAY), tables)).toEqual([]);
    expect(scopes(trackedUrls, daySlice(DAY))).toEqual({
      tracked_urls: 'merge',
      tracked_url_daily: { brand_id: BRAND, day: DAY },
      tracked_url_daily_totals: { brand_id: BRAND, day: DAY },
    });
  });
});

describe('visibility', () => {
  const brands = [
    {
      name: 'Acme',
      website: 'acme.test',
      is_own_brand: true,
      conversations: 30,
      visibility: 0.4,
      confidence_interval: ci(0.25, 0.57),
      share_of_voice: 0.3,
    },
    { name: 'Rival', is_own_brand: false, conversations: 30, visibility: 0.1, change: -0.05, tier: 'gold' },
  ];
  const row = {
    topic_id: 5,
    name: 'Running shoes',
    conversations: 30,
    days: 1,
    visibility: 0.4,
    change: 0.1,
    confidence_interval: ci(0.25, 0.57),
    share_of_voice: 0.3,
    brands,
    scenarios: [
      {
        scenario_id: 51,
        text: 'best trail shoe?',
        conversations: 7,
        days: 1,
        visibility: 3 / 7,
        brands: [{ ...brands[0]!, conversations: 7, visibility: 3 / 7 }],
      },
      {
        scenario_id: 52,
        text: 'cheap shoe?',
        conversations: 23,
        days: 1,
        visibility: 0.391304347826087,
        confidence_interval: ci(0.2, 0.6),
        brands: [],
      },
    ],
    trend: 'up',
  };

  it('asks for the day with scenarios and keeps numerators, intervals and extras on every level', async () => {
    const calls: unknown[][] = [];
    const client = {
      visibilityTopics: async (...args: unknown[]) => {
        calls.push(args);
        return { records: [row], rejects: [], info: { total_rows: 1 }, totalRows: 1 };
      },
    };
    const slice = daySlice(DAY);
    const { tables, result } = await readSlice(visibility, slice, client);
    expect(result).toMatchObject({ status: 'complete', records: 1, totalRows: 1 });
    expect(calls[0]).toMatchObject([BRAND, { startDate: DAY, endDate: DAY, includeScenarios: true }]);
    expect(tables.topics).toEqual([{ brand_id: BRAND, id: 5, name: 'Running shoes', _extra: null }]);
    expect(tables.scenarios!.map((s) => [s.id, s.topic_id, s.text])).toEqual([
      [51, 5, 'best trail shoe?'],
      [52, 5, 'cheap shoe?'],
    ]);
    expect(tables.visibility_topic_daily).toEqual([
      {
        brand_id: BRAND,
        day: DAY,
        topic_id: 5,
        conversations: 30,
        mentioned_conversations: 12,
        visibility: 0.4,
        change: 0.1,
        ci_lower: 0.25,
        ci_upper: 0.57,
        share_of_voice: 0.3,
        days: 1,
        _extra: { trend: 'up' },
      },
    ]);
    expect(
      tables.visibility_topic_brand_daily!.map((b) => [
        b.brand_name,
        b.is_own_brand,
        b.website,
        b.mentioned_conversations,
        b.ci_lower,
        b.change,
        b._extra,
      ]),
    ).toEqual([
      ['Acme', true, 'acme.test', 12, 0.25, null, null],
      ['Rival', false, null, 3, null, -0.05, { tier: 'gold' }],
    ]);
    expect(
      tables.visibility_scenario_daily!.map((s) => [
        s.scenario_id,
        s.topic_id,
        s.conversations,
        s.mentioned_conversations,
        s.ci_upper,
        s.days,
      ]),
    ).toEqual([
      [51, 5, 7, 3, null, 1],
      [52, 5, 23, 9, 0.6, 1],
    ]);
    expect(tables.visibility_scenario_brand_daily).toHaveLength(1);
    expect(tables.visibility_scenario_brand_daily![0]).toMatchObject({
      scenario_id: 51,
      topic_id: 5,
      brand_name: 'Acme',
      mentioned_conversations: 3,
    });
    expect(outsideScope(visibility, slice, tables)).toEqual([]);
  });

  it('recovers the integer numerator from a rounded ratio', () => {
    expect(mentionedConversations(1 / 3, 3)).toBe(1);
    expect(mentionedConversations(0.6666666666666666, 3)).toBe(2);
    expect(mentionedConversations(0, 0)).toBe(0);
  });

  it('replaces the four fact tables by brand and day and merges the dimensions', () => {
    expect(scopes(visibility, daySlice(DAY))).toEqual({
      topics: 'merge',
      scenarios: 'merge',
      visibility_topic_daily: { brand_id: BRAND, day: DAY },
      visibility_topic_brand_daily: { brand_id: BRAND, day: DAY },
      visibility_scenario_daily: { brand_id: BRAND, day: DAY },
      visibility_scenario_brand_daily: { brand_id: BRAND, day: DAY },
    });
  });
});

describe('product_ranking', () => {
  it('plans 4 slices a day (metric x subject) with unique keys', () => {
    const slices = productRanking.slices(planInput(['2026-11-18', '2026-11-19', DAY]));
    expect(slices).toHaveLength(12);
    expect(new Set(slices.map((s) => s.key)).size).toBe(12);
    expect(slices.filter((s) => s.day === DAY).map((s) => s.params)).toEqual(
      expect.arrayContaining([
        { metric: 'visibility', subject: 'brand' },
        { metric: 'visibility', subject: 'competitor' },
        { metric: 'recommendation', subject: 'brand' },
        { metric: 'recommendation', subject: 'competitor' },
      ]),
    );
    expect(slices.map((s) => s.key)).toContain(`recommendation-competitor/${DAY}`);
  });

  it('writes one row per product and the shopping count, scoped to day, metric and subject', async () => {
    const calls: unknown[][] = [];
    const slice = daySlice(DAY, { metric: 'recommendation', subject: 'competitor' });
    const product = {
      id: 900,
      rank: 1,
      label: 'X1',
      title: 'Shoe X1',
      price: '$99',
      rating: 4.5,
      reviews: 120,
      visibility: 0.5,
      recommendation: 0.25,
      confidence_interval: ci(0.1, 0.4),
      colour: 'red',
    };
    const client = {
      productRanking: pagedMethod(
        [
          {
            records: [product, { id: 901, rank: 2, label: 'X2', title: 'Shoe X2' }],
            info: { page: 1, page_size: 50, total_rows: 2, shopping_conversations: 8 },
          },
        ],
        calls,
      ),
    };
    const { tables, result } = await readSlice(productRanking, slice, client);
    expect(result.status).toBe('complete');
    expect(calls[0]).toMatchObject([
      BRAND,
      { startDate: DAY, endDate: DAY, metric: 'recommendation', subject: 'competitor', order: 'desc' },
    ]);
    expect(tables.product_ranking_daily![0]).toEqual({
      brand_id: BRAND,
      day: DAY,
      metric: 'recommendation',
      subject: 'competitor',
      product_id: 900,
      rank: 1,
      label: 'X1',
      title: 'Shoe X1',
      category: null,
      price: '$99',
      rating: 4.5,
      reviews: 120,
      visibility: 0.5,
      recommendation: 0.25,
      image_url: null,
      ci_lower: 0.1,
      ci_upper: 0.4,
      _extra: { colour: 'red' },
    });
    expect(tables.product_ranking_daily![1]).toMatchObject({ product_id: 901, ci_lower: null, visibility: null });
    expect(tables.product_ranking_shopping_daily).toEqual([
      {
        brand_id: BRAND,
        day: DAY,
        metric: 'recommendation',
        subject: 'competitor',
        shopping_conversations: 8,
        total_rows: 2,
        _extra: null,
      },
    ]);
    expect(scopes(productRanking, slice)).toEqual({
      product_ranking_daily: { brand_id: BRAND, day: DAY, metric: 'recommendation', subject: 'competitor' },
      product_ranking_shopping_daily: { brand_id: BRAND, day: DAY, metric: 'recommendation', subject: 'competitor' },
    });
    expect(outsideScope(productRanking, slice, tables)).toEqual([]);
  });

  it('is incomplete when fewer products arrive than total_rows says', async () => {
    const client = {
      productRanking: pagedMethod(
        [{ records: [{ id: 1, rank: 1, label: 'a', title: 'a' }], info: { total_rows: 3 } }],
        [],
      ),
    };
    const { result } = await readSlice(
      productRanking,
      daySlice(DAY, { metric: 'visibility', subject: 'brand' }),
      client,
    );
    expect(result.status).toBe('incomplete');
  });
});

describe('domain_details', () => {
  it('plans one slice per distinct normalised domain and day', () => {
    const slices = domainDetails.slices(
      planInput(['2026-11-19', DAY], { dimensions: { domains: ['www.Example.com', 'example.com', 'news.test'] } }),
    );
    expect(slices.map((s) => s.key)).toEqual([
      'example.com/2026-11-19',
      `example.com/${DAY}`,
      'news.test/2026-11-19',
      `news.test/${DAY}`,
    ]);
    expect(slices[0]!.params).toEqual({ domain: 'example.com' });
  });

  it('takes the day entry of over_time and splits by model, topic and scenario', async () => {
    const slice = daySlice(DAY, { domain: 'example.com' });
    const detail = {
      domain: 'example.com',
      is_first_party: false,
      occurrences: 9,
      by_model: [
        { model: 'engine-a', occurrences: 6 },
        { model: 'engine-b', occurrences: 3, beta: true },
      ],
      by_scenario: [{ scenario_id: 51, text: 'best trail shoe?', occurrences: 9 }],
      by_topic: [{ topic_id: 5, name: 'Running shoes', occurrences: 9 }],
      over_time: [
        { date: '2026-11-19', occurrences: 1, cited_occurrences: 1 },
        { date: DAY, occurrences: 9, cited_occurrences: 7 },
      ],
      rank: 4,
    };
    const calls: unknown[][] = [];
    const client = {
      domainDetail: async (...args: unknown[]) => {
        calls.push(args);
        return { records: [detail], rejects: [], info: {}, empty: false };
      },
    };
    const { tables, result } = await readSlice(domainDetails, slice, client);
    expect(result.status).toBe('complete');
    expect(calls[0]).toMatchObject([BRAND, 'example.com', { startDate: DAY, endDate: DAY }]);
    expect(tables.domain_daily).toEqual([
      {
        brand_id: BRAND,
        domain: 'example.com',
        day: DAY,
        is_first_party: false,
        occurrences: 9,
        cited_occurrences: 7,
        _extra: { rank: 4 },
      },
    ]);
    expect(tables.domain_model_daily!.map((r) => [r.model, r.occurrences, r._extra])).toEqual([
      ['engine-a', 6, null],
      ['engine-b', 3, { beta: true }],
    ]);
    expect(tables.domain_topic_daily).toEqual([
      {
        brand_id: BRAND,
        domain: 'example.com',
        day: DAY,
        topic_id: 5,
        name: 'Running shoes',
        occurrences: 9,
        _extra: null,
      },
    ]);
    expect(tables.domain_scenario_daily![0]).toMatchObject({ scenario_id: 51, text: 'best trail shoe?' });
    expect(outsideScope(domainDetails, slice, tables)).toEqual([]);
  });

  it('writes no rows for a 404 (empty) day but still declares the four replaces, so stale rows go', async () => {
    const slice = daySlice(DAY, { domain: 'example.com' });
    const client = { domainDetail: async () => ({ records: [], rejects: [], info: {}, empty: true }) };
    const { tables, result } = await readSlice(domainDetails, slice, client);
    expect(result.status).toBe('complete');
    expect(tables).toEqual({});
    expect(scopes(domainDetails, slice)).toEqual({
      domain_daily: { brand_id: BRAND, domain: 'example.com', day: DAY },
      domain_model_daily: { brand_id: BRAND, domain: 'example.com', day: DAY },
      domain_topic_daily: { brand_id: BRAND, domain: 'example.com', day: DAY },
      domain_scenario_daily: { brand_id: BRAND, domain: 'example.com', day: DAY },
    });
  });
});
