import { describe, expect, it } from 'vitest';
import { articles } from '../../src/streams/articles.js';
import { contentAnalyses } from '../../src/streams/content-analyses.js';
import { fanoutsByPhrase } from '../../src/streams/fanouts-by-phrase.js';
import { fanoutsCited } from '../../src/streams/fanouts-cited.js';
import { swot } from '../../src/streams/swot.js';
import { templates } from '../../src/streams/templates.js';
import { BRAND, outsideScope, pagedMethod, planInput, readSlice, scopes } from './harness.js';
import type { SyncConfig } from '../../src/configuration.js';

const DAYS = ['2026-11-19', '2026-11-20'];
// A backfill of past days read days later: the counters are of the day they were read.
const READ_DAY = '2026-11-23';
const CREATED = '2026-09-01T10:00:00Z';
const UPDATED = '2026-11-01T10:00:00Z';

describe('full refreshes: templates, articles, content analyses', () => {
  it('plan one slice per brand over the run, replacing every row of the brand', () => {
    for (const stream of [templates, articles, contentAnalyses]) {
      const slices = stream.slices(planInput(DAYS));
      const params = stream === articles ? { readDay: expect.any(String) } : {};
      expect(slices).toEqual([{ key: 'all', day: null, from: DAYS[0], to: DAYS[1], params, snapshot: true }]);
      expect(scopes(stream, slices[0]!)[stream.name]).toEqual({ brand_id: BRAND });
    }
  });

  it('templates become rows with optional fields null and unknown ones in _extra', async () => {
    const [slice] = templates.slices(planInput(DAYS));
    const client = {
      templates: pagedMethod(
        [
          {
            records: [{ id: 3, title: 'Brief', type: 'brief', created_at: CREATED, updated_at: UPDATED, owner: 'me' }],
            info: { total_rows: 1 },
          },
        ],
        [],
      ),
    };
    const { tables, result } = await readSlice(templates, slice!, client);
    expect(result.status).toBe('complete');
    expect(tables.templates).toEqual([
      {
        brand_id: BRAND,
        id: 3,
        title: 'Brief',
        type: 'brief',
        article_type: null,
        content: null,
        created_at: CREATED,
        updated_at: UPDATED,
        _extra: { owner: 'me' },
      },
    ]);
  });

  it("articles keep id lists and file the status counters under the day they were read, not the window's end", async () => {
    // The planner's clock day, not the window's end, whatever the real date (the engine passes its clock's).
    const [planned] = articles.slices({ ...planInput(DAYS), readDay: READ_DAY });
    expect(planned!.params.readDay).toBe(READ_DAY);
    const slice = planned!;
    const article = {
      id: 8,
      title: 'How to run',
      status: 'draft',
      generation_status: 'done',
      topic_ids: [5, 6],
      created_at: CREATED,
      updated_at: UPDATED,
    };
    const client = {
      articles: pagedMethod(
        [
          {
            records: [article],
            info: { draft: 1, in_progress: 0, published: 0, archived: 2, page: 1, page_size: 100, total_rows: 1 },
          },
        ],
        [],
      ),
    };
    const { tables } = await readSlice(articles, slice!, client);
    expect(tables.articles![0]).toMatchObject({
      id: 8,
      slug: null,
      version: null,
      topic_ids: [5, 6],
      scenario_ids: null,
      status: 'draft',
      _extra: null,
    });
    expect(tables.article_status_daily).toEqual([
      {
        brand_id: BRAND,
        day: READ_DAY,
        draft: 1,
        in_progress: 0,
        published: 0,
        total_rows: 1,
        _extra: { archived: 2 },
      },
    ]);
    expect(scopes(articles, slice!)).toEqual({
      articles: { brand_id: BRAND },
      article_status_daily: { brand_id: BRAND, day: READ_DAY },
    });
    expect(outsideScope(articles, slice!, tables)).toEqual([]);
  });

  it('content analyses become rows', async () => {
    const [slice] = contentAnalyses.slices(planInput(DAYS));
    const client = {
      contentAnalyses: pagedMethod(
        [
          {
            records: [
              {
                id: 4,
                kind: 'url',
                status: 'pending',
                step: 'fetch',
                created_at: CREATED,
                updated_at: UPDATED,
                url: 'https://acme.test/',
              },
            ],
            info: { total_rows: 1 },
          },
        ],
        [],
      ),
    };
    const { tables } = await readSlice(contentAnalyses, slice!, client);
    expect(tables.content_analyses).toEqual([
      {
        brand_id: BRAND,
        id: 4,
        kind: 'url',
        status: 'pending',
        step: 'fetch',
        created_at: CREATED,
        updated_at: UPDATED,
        article_id: null,
        title: null,
        topic_id: null,
        topic_name: null,
        url: 'https://acme.test/',
        _extra: null,
      },
    ]);
  });
});

describe('fanouts_cited', () => {
  it('plans one window slice per distinct domain and scopes rows to that domain and window', async () => {
    const slices = fanoutsCited.slices(
      planInput(DAYS, { dimensions: { domains: ['b.test', 'www.A.test', 'a.test'] } }),
    );
    expect(slices.map((s) => s.key)).toEqual([`a.test/${DAYS[0]}..${DAYS[1]}`, `b.test/${DAYS[0]}..${DAYS[1]}`]);
    const calls: unknown[][] = [];
    const client = {
      fanoutsCited: pagedMethod(
        [{ records: [{ id: 70, query: 'best shoe', conversations: 4, relevance: 0.8 }], info: { total_rows: 1 } }],
        calls,
      ),
    };
    const { tables } = await readSlice(fanoutsCited, slices[0]!, client);
    expect(calls[0]).toMatchObject([BRAND, { startDate: DAYS[0], endDate: DAYS[1], domain: 'a.test' }]);
    expect(tables.fanouts_cited).toEqual([
      {
        brand_id: BRAND,
        target_kind: 'domain',
        target: 'a.test',
        window_start: DAYS[0],
        window_end: DAYS[1],
        id: 70,
        query: 'best shoe',
        conversations: 4,
        relevance: 0.8,
        _extra: null,
      },
    ]);
    expect(scopes(fanoutsCited, slices[0]!)).toEqual({
      fanouts_cited: {
        brand_id: BRAND,
        target_kind: 'domain',
        target: 'a.test',
        window_start: DAYS[0],
        window_end: DAYS[1],
      },
    });
  });
});

describe('swot', () => {
  it('plans one window slice per configured statement, none without', () => {
    expect(swot.slices(planInput(DAYS))).toEqual([]);
    const perBrand = { [String(BRAND)]: [12, 30, 12], '8': [99] } as unknown as SyncConfig['swotStatementIds'];
    const slices = swot.slices(planInput(DAYS, { sync: { swotStatementIds: perBrand } }));
    expect(slices.map((s) => s.key)).toEqual([
      `statement-12/${DAYS[0]}..${DAYS[1]}`,
      `statement-30/${DAYS[0]}..${DAYS[1]}`,
    ]);
    expect(slices[0]!.params).toEqual({ statementId: 12 });
    const everyBrand = [30] as unknown as SyncConfig['swotStatementIds'];
    expect(
      swot.slices(planInput(DAYS, { sync: { swotStatementIds: everyBrand } })).map((s) => s.params.statementId),
    ).toEqual([30]);
  });

  it("writes answers with their day and the page type, replacing the window's days, and merges the statement", async () => {
    const [slice] = swot.slices(
      planInput(DAYS, {
        sync: { swotStatementIds: { [String(BRAND)]: [12] } as unknown as SyncConfig['swotStatementIds'] },
      }),
    );
    const calls: unknown[][] = [];
    const client = {
      swotAnswers: pagedMethod(
        [
          {
            records: [
              { conversation_id: 101, date: '2026-11-20T09:00:00Z', text: 'strong grip', model: 'engine-a' },
              { conversation_id: 100, date: '2026-11-19T23:59:59Z', text: 'strong grip', sentiment: 'pos' },
            ],
            info: {
              page: 1,
              page_size: 100,
              total_rows: 2,
              type: 'strengths',
              statement: { id: 12, text: 'Great grip', mentions: 2, since: '2026' },
            },
          },
        ],
        calls,
      ),
    };
    const { tables, result } = await readSlice(swot, slice!, client);
    expect(result.status).toBe('complete');
    expect(calls[0]).toMatchObject([BRAND, 12, { startDate: DAYS[0], endDate: DAYS[1] }]);
    expect(tables.swot_answers).toEqual([
      {
        brand_id: BRAND,
        statement_id: 12,
        conversation_id: 101,
        date: '2026-11-20T09:00:00Z',
        day: DAYS[1],
        text: 'strong grip',
        model: 'engine-a',
        type: 'strengths',
        _extra: null,
      },
      {
        brand_id: BRAND,
        statement_id: 12,
        conversation_id: 100,
        date: '2026-11-19T23:59:59Z',
        day: DAYS[0],
        text: 'strong grip',
        model: null,
        type: 'strengths',
        _extra: { sentiment: 'pos' },
      },
    ]);
    expect(tables.swot_statements).toEqual([
      {
        brand_id: BRAND,
        statement_id: 12,
        type: 'strengths',
        text: 'Great grip',
        mentions: 2,
        window_start: DAYS[0],
        window_end: DAYS[1],
        _extra: { since: '2026' },
      },
    ]);
    expect(scopes(swot, slice!)).toEqual({
      swot_answers: { brand_id: BRAND, statement_id: 12, day: DAYS },
      swot_statements: 'merge',
    });
    expect(outsideScope(swot, slice!, tables)).toEqual([]);
  });
});

describe('fanouts_by_phrase', () => {
  it("plans one slice per distinct phrase, keyed by it, and replaces that phrase's rows", async () => {
    expect(fanoutsByPhrase.slices(planInput(DAYS))).toEqual([]);
    const slices = fanoutsByPhrase.slices(
      planInput(DAYS, { sync: { phrases: ['trail shoes', 'a: b', 'trail shoes'] } }),
    );
    expect(slices.map((s) => s.key)).toEqual(['phrase=trail shoes', 'phrase=a: b']);
    const calls: unknown[][] = [];
    const client = {
      fanoutsByPhrase: pagedMethod(
        [{ records: [{ id: 1, query: 'best trail shoes 2026' }], info: { total_rows: 1 } }],
        calls,
      ),
    };
    const { tables } = await readSlice(fanoutsByPhrase, slices[0]!, client);
    expect(calls[0]).toMatchObject([BRAND, { phrase: 'trail shoes' }]);
    expect(tables.fanouts_by_phrase).toEqual([
      { brand_id: BRAND, phrase: 'trail shoes', id: 1, query: 'best trail shoes 2026', _extra: null },
    ]);
    expect(scopes(fanoutsByPhrase, slices[0]!)).toEqual({
      fanouts_by_phrase: { brand_id: BRAND, phrase: 'trail shoes' },
    });
  });
});
