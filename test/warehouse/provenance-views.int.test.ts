import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { appliedQuery, sentEnginesQuery } from '../../src/warehouse/provenance.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { openPublished, type PublishedReader } from '../support/published-reader.js';
import { tempDir } from '../support/tmp.js';
import { sliceBatch } from './batches.js';

// A hand-made day of brand 7, worked out by hand: engine a agrees, engine b lost one answer from the conversations,
// engine c answers but is not broken down, engine d is broken down with no answers. Read from the published copy.
const tmp = tempDir('provenance-views');
const DAY = '2026-11-20';
const OTHER_DAY = '2026-11-19';
let reader: PublishedReader | undefined;
const rows = (sql: string) => reader!.rows(sql);

/** One day of answers of a brand, each [id, model, mentioned], as the conversations stream loads them. */
function loadAnswers(wh: Warehouse, brandId: number, answers: Array<[number, string, boolean]>) {
  return wh.loadSlice(
    sliceBatch({
      brandId,
      stream: 'conversations',
      sliceKey: DAY,
      day: DAY,
      writes: [
        {
          table: 'conversations',
          mode: 'replace',
          scope: { day: DAY },
          rows: answers.map(([id, model, mentioned]) => ({
            id,
            day: DAY,
            date: `${DAY}T12:00:00.000Z`,
            model,
            mentioned,
          })),
        },
      ],
    }),
  );
}

beforeAll(async () => {
  const wh = await openWarehouse(join(tmp.path, 'bv.work.duckdb'));
  const slice = { from: DAY, to: DAY };
  await wh.loadSlice(
    sliceBatch({
      stream: 'visibility',
      sliceKey: DAY,
      day: DAY,
      appliedQuery: appliedQuery({ engines: ['a', 'b', 'd'] }, slice),
      writes: [
        {
          table: 'visibility_topic_daily',
          mode: 'replace',
          scope: { day: DAY },
          rows: [
            { day: DAY, topic_id: 1, conversations: 4, mentioned_conversations: 2 },
            { day: DAY, topic_id: 2, conversations: 3, mentioned_conversations: 1 },
          ],
        },
      ],
    }),
  );
  const byEngine = (engine: string, topics: Array<[number, number, number]>) =>
    wh.loadSlice(
      sliceBatch({
        stream: 'visibility_by_engine',
        sliceKey: `${engine}/${DAY}`,
        day: DAY,
        appliedQuery: appliedQuery({ engines: [engine] }, slice),
        writes: [
          {
            table: 'visibility_topic_engine_daily',
            mode: 'replace',
            scope: { day: DAY, engine },
            rows: topics.map(([topic_id, conversations, mentioned_conversations]) => ({
              day: DAY,
              engine,
              topic_id,
              conversations,
              mentioned_conversations,
            })),
          },
        ],
      }),
    );
  await byEngine('a', [
    [1, 2, 1],
    [2, 1, 1],
  ]);
  await byEngine('b', [
    [1, 2, 1],
    [2, 2, 0],
  ]);
  await byEngine('d', []);
  // Answers: a 3 (2 mentioned), b 3 of its 4 (1 mentioned), c 2 (not broken down); another day, not synced for the views.
  const answers: Array<[number, string, boolean]> = [
    [1, 'a', true],
    [2, 'a', true],
    [3, 'a', false],
    [4, 'b', true],
    [5, 'b', false],
    [6, 'b', false],
    [7, 'c', false],
    [8, 'c', true],
  ];
  await loadAnswers(wh, 7, answers);
  await wh.loadSlice(
    sliceBatch({
      stream: 'visibility_by_engine',
      sliceKey: `a/${OTHER_DAY}`,
      day: OTHER_DAY,
      appliedQuery: appliedQuery({ engines: ['a'] }, { from: OTHER_DAY, to: OTHER_DAY }),
      writes: [
        {
          table: 'visibility_topic_engine_daily',
          mode: 'replace',
          scope: { day: OTHER_DAY, engine: 'a' },
          rows: [{ day: OTHER_DAY, engine: 'a', topic_id: 1, conversations: 5, mentioned_conversations: 5 }],
        },
      ],
    }),
  );
  // Brand 8 is read with api.engines ['a', 'x']: its visibility echo names them, which the report's default never applied,
  // and its conversations hold only those engines' answers.
  const filtered = { from: DAY, to: DAY };
  await wh.loadSlice(
    sliceBatch({
      brandId: 8,
      stream: 'visibility',
      sliceKey: DAY,
      day: DAY,
      appliedQuery: appliedQuery({ engines: ['a', 'x'] }, filtered, 'engines', ['a', 'x']),
      writes: [
        {
          table: 'visibility_topic_daily',
          mode: 'replace',
          scope: { day: DAY },
          rows: [{ day: DAY, topic_id: 1, conversations: 2, mentioned_conversations: 1 }],
        },
      ],
    }),
  );
  await wh.loadSlice(
    sliceBatch({
      brandId: 8,
      stream: 'conversations',
      sliceKey: DAY,
      day: DAY,
      appliedQuery: sentEnginesQuery(['a', 'x'], filtered),
      writes: [
        {
          table: 'conversations',
          mode: 'replace',
          scope: { day: DAY },
          rows: [
            [21, 'a'],
            [22, 'x'],
          ].map(([id, model]) => ({ id, day: DAY, date: `${DAY}T12:00:00.000Z`, model, mentioned: false })),
        },
      ],
    }),
  );
  // Brand 9: the API spells the engines in the answers' model in another letter case than in the visibility echo
  // (an independent mock: "Chatgpt" against "chatgpt"). The per-engine slices asked for the echo's spelling; gemini's
  // answer echoes it twice in two cases, which the loader reads as that engine alone.
  await wh.loadSlice(
    sliceBatch({
      brandId: 9,
      stream: 'visibility',
      sliceKey: DAY,
      day: DAY,
      appliedQuery: appliedQuery({ engines: ['chatgpt', 'gemini'] }, slice),
      writes: [
        {
          table: 'visibility_topic_daily',
          mode: 'replace',
          scope: { day: DAY },
          rows: [
            { day: DAY, topic_id: 1, conversations: 3, mentioned_conversations: 2 },
            { day: DAY, topic_id: 2, conversations: 1, mentioned_conversations: 0 },
          ],
        },
      ],
    }),
  );
  const byEngineOf9 = (engine: string, echoed: string[], topics: Array<[number, number, number]>) =>
    wh.loadSlice(
      sliceBatch({
        brandId: 9,
        stream: 'visibility_by_engine',
        sliceKey: `${engine}/${DAY}`,
        day: DAY,
        appliedQuery: appliedQuery({ engines: echoed }, slice, 'engines', [engine]),
        writes: [
          {
            table: 'visibility_topic_engine_daily',
            mode: 'replace',
            scope: { day: DAY, engine },
            rows: topics.map(([topic_id, conversations, mentioned_conversations]) => ({
              day: DAY,
              engine,
              topic_id,
              conversations,
              mentioned_conversations,
            })),
          },
        ],
      }),
    );
  await byEngineOf9(
    'chatgpt',
    ['chatgpt'],
    [
      [1, 2, 2],
      [2, 1, 0],
    ],
  );
  await byEngineOf9('gemini', ['Gemini', 'gemini'], [[1, 1, 0]]);
  // chatgpt 3 answers (2 mentioned) in two spellings, gemini 1, Perplexity 1 (not broken down).
  const mixedCase: Array<[number, string, boolean]> = [
    [31, 'Chatgpt', true],
    [32, 'Chatgpt', false],
    [33, 'ChatGPT', true],
    [34, 'GEMINI', false],
    [35, 'Perplexity', true],
  ];
  await loadAnswers(wh, 9, mixedCase);
  const published = join(tmp.path, 'bv.duckdb');
  await wh.publish(published);
  await wh.close();
  reader = await openPublished(published);
});

afterAll(() => {
  reader?.close();
  tmp.remove();
});

describe('the engine views', () => {
  it('v_engine_reconciliation_daily agrees, disagrees, or says a side was not synced', async () => {
    const result =
      await rows(`SELECT "day"::VARCHAR AS day, engine, broken_down, conversations_synced, visibility_answers, conversations,
                                      visibility_mentioned, mentioned_conversations, agrees
                               FROM v_engine_reconciliation_daily WHERE brand_id = 7 ORDER BY day, engine`);
    expect(result).toEqual([
      {
        day: OTHER_DAY,
        engine: 'a',
        broken_down: true,
        conversations_synced: false,
        visibility_answers: 5,
        conversations: null,
        visibility_mentioned: 5,
        mentioned_conversations: null,
        agrees: null,
      },
      {
        day: DAY,
        engine: 'a',
        broken_down: true,
        conversations_synced: true,
        visibility_answers: 3,
        conversations: 3,
        visibility_mentioned: 2,
        mentioned_conversations: 2,
        agrees: true,
      },
      {
        day: DAY,
        engine: 'b',
        broken_down: true,
        conversations_synced: true,
        visibility_answers: 4,
        conversations: 3,
        visibility_mentioned: 1,
        mentioned_conversations: 1,
        agrees: false,
      },
      {
        day: DAY,
        engine: 'c',
        broken_down: false,
        conversations_synced: true,
        visibility_answers: null,
        conversations: 2,
        visibility_mentioned: null,
        mentioned_conversations: 1,
        agrees: null,
      },
      {
        day: DAY,
        engine: 'd',
        broken_down: true,
        conversations_synced: true,
        visibility_answers: 0,
        conversations: 0,
        visibility_mentioned: 0,
        mentioned_conversations: 0,
        agrees: true,
      },
    ]);
  });

  it('v_visibility_coverage_daily counts the conversations of the echoed engines beside every engine', async () => {
    expect(
      await rows(
        `SELECT engines, visibility_answers, conversations_of_those_engines, conversations_all_engines, agrees FROM v_visibility_coverage_daily WHERE brand_id = 7`,
      ),
    ).toEqual([
      {
        engines: ['a', 'b', 'd'],
        visibility_answers: 7,
        conversations_of_those_engines: 6,
        conversations_all_engines: 8,
        agrees: false,
      },
    ]);
  });

  it('v_visibility_engine_daily sums the topics of each engine exactly', async () => {
    expect(
      await rows(
        `SELECT engine, topics, conversations, mentioned_conversations, visibility FROM v_visibility_engine_daily WHERE brand_id = 7 AND "day" = '${DAY}' ORDER BY engine`,
      ),
    ).toEqual([
      { engine: 'a', topics: 2, conversations: 3, mentioned_conversations: 2, visibility: 2 / 3 },
      { engine: 'b', topics: 2, conversations: 4, mentioned_conversations: 1, visibility: 0.25 },
    ]);
  });

  it('v_engines names each engine by source, with its days, and which are the brand engines', async () => {
    const result =
      await rows(`SELECT engine, source, first_seen_day::VARCHAR AS first, last_seen_day::VARCHAR AS last, slices_or_answers AS n, is_brand_engine
                               FROM v_engines WHERE brand_id = 7 ORDER BY source, engine`);
    expect(result).toEqual([
      { engine: 'a', source: 'conversations', first: DAY, last: DAY, n: 3, is_brand_engine: true },
      { engine: 'b', source: 'conversations', first: DAY, last: DAY, n: 3, is_brand_engine: true },
      { engine: 'c', source: 'conversations', first: DAY, last: DAY, n: 2, is_brand_engine: false },
      { engine: 'a', source: 'visibility', first: DAY, last: DAY, n: 1, is_brand_engine: true },
      { engine: 'b', source: 'visibility', first: DAY, last: DAY, n: 1, is_brand_engine: true },
      { engine: 'd', source: 'visibility', first: DAY, last: DAY, n: 1, is_brand_engine: true },
      { engine: 'a', source: 'visibility_by_engine', first: OTHER_DAY, last: DAY, n: 2, is_brand_engine: true },
      { engine: 'b', source: 'visibility_by_engine', first: DAY, last: DAY, n: 1, is_brand_engine: true },
      { engine: 'd', source: 'visibility_by_engine', first: DAY, last: DAY, n: 1, is_brand_engine: true },
    ]);
  });

  it("with api.engines sent: no engine is called a brand engine, and every engine's answers are not claimed", async () => {
    // Before, the echo of the engines sent made them brand engines, and "all engines" counted the filtered answers.
    expect(
      await rows(`SELECT engine, source, is_brand_engine FROM v_engines WHERE brand_id = 8 ORDER BY source, engine`),
    ).toEqual([
      { engine: 'a', source: 'conversations', is_brand_engine: false },
      { engine: 'x', source: 'conversations', is_brand_engine: false },
      // The filter the conversations sent, one row per source: it had been a second 'conversations' row of each engine.
      { engine: 'a', source: 'conversations_sent', is_brand_engine: false },
      { engine: 'x', source: 'conversations_sent', is_brand_engine: false },
      { engine: 'a', source: 'visibility', is_brand_engine: false },
      { engine: 'x', source: 'visibility', is_brand_engine: false },
    ]);
    expect(
      await rows(
        `SELECT engines, conversations_of_those_engines, conversations_all_engines FROM v_visibility_coverage_daily WHERE brand_id = 8`,
      ),
    ).toEqual([{ engines: ['a', 'x'], conversations_of_those_engines: 2, conversations_all_engines: null }]);
    expect(await rows(`SELECT stream, sent_engines FROM _slice_queries WHERE brand_id = 8 ORDER BY stream`)).toEqual([
      { stream: 'conversations', sent_engines: ['a', 'x'] },
      { stream: 'visibility', sent_engines: ['a', 'x'] },
    ]);
  });
});

describe('engine ids spelled in another letter case by another source', () => {
  // Before, the views joined on exact case: every row below disagreed or counted no conversations, though the data was right.
  it('v_engine_reconciliation_daily matches them ignoring case and names each engine as the visibility side spells it', async () => {
    expect(
      await rows(`SELECT engine, broken_down, visibility_answers, conversations, visibility_mentioned, mentioned_conversations, agrees
                  FROM v_engine_reconciliation_daily WHERE brand_id = 9 ORDER BY lower(engine)`),
    ).toEqual([
      {
        engine: 'chatgpt',
        broken_down: true,
        visibility_answers: 3,
        conversations: 3,
        visibility_mentioned: 2,
        mentioned_conversations: 2,
        agrees: true,
      },
      {
        engine: 'gemini',
        broken_down: true,
        visibility_answers: 1,
        conversations: 1,
        visibility_mentioned: 0,
        mentioned_conversations: 0,
        agrees: true,
      },
      {
        engine: 'Perplexity',
        broken_down: false,
        visibility_answers: null,
        conversations: 1,
        visibility_mentioned: null,
        mentioned_conversations: 1,
        agrees: null,
      },
    ]);
  });

  it('v_visibility_coverage_daily counts the answers of the echoed engines in any case, and shows the echo as spelled', async () => {
    expect(
      await rows(
        `SELECT engines, visibility_answers, conversations_of_those_engines, conversations_all_engines, agrees FROM v_visibility_coverage_daily WHERE brand_id = 9`,
      ),
    ).toEqual([
      {
        engines: ['chatgpt', 'gemini'],
        visibility_answers: 4,
        conversations_of_those_engines: 4,
        conversations_all_engines: 5,
        agrees: true,
      },
    ]);
  });

  it("v_engines keeps each source's spelling and calls an engine the echo named in another case a brand engine", async () => {
    expect(
      await rows(
        `SELECT engine, source, slices_or_answers AS n, is_brand_engine FROM v_engines WHERE brand_id = 9 ORDER BY source, engine`,
      ),
    ).toEqual([
      { engine: 'ChatGPT', source: 'conversations', n: 1, is_brand_engine: true },
      { engine: 'Chatgpt', source: 'conversations', n: 2, is_brand_engine: true },
      { engine: 'GEMINI', source: 'conversations', n: 1, is_brand_engine: true },
      { engine: 'Perplexity', source: 'conversations', n: 1, is_brand_engine: false },
      { engine: 'chatgpt', source: 'visibility', n: 1, is_brand_engine: true },
      { engine: 'gemini', source: 'visibility', n: 1, is_brand_engine: true },
      { engine: 'Gemini', source: 'visibility_by_engine', n: 1, is_brand_engine: true },
      { engine: 'chatgpt', source: 'visibility_by_engine', n: 1, is_brand_engine: true },
      { engine: 'gemini', source: 'visibility_by_engine', n: 1, is_brand_engine: true },
    ]);
  });
});
