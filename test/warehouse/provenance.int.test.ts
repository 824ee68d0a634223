import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { appliedQuery, sentEnginesQuery } from '../../src/warehouse/provenance.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { openPublished } from '../support/published-reader.js';
import { tempDir } from '../support/tmp.js';
import { completeState, sliceBatch } from './batches.js';

// The echo a slice's answer gives is written by the loader with the slice's rows: replaced by the next load of the
// slice, kept by an attempt recorded beside a better state, and the source of the brand's engines.
const tmp = tempDir('provenance');
let wh: Warehouse;

const DAY = '2026-11-20';
const slice = { from: DAY, to: DAY };
const rowsOfDay = (conversations: number) => [
  { day: DAY, topic_id: 1, conversations, mentioned_conversations: 1, visibility: 1 / conversations },
];
const visibilityLoad = (engines: string[], conversations: number, overrides = {}) =>
  sliceBatch({
    stream: 'visibility',
    sliceKey: DAY,
    day: DAY,
    writes: [{ table: 'visibility_topic_daily', mode: 'replace', scope: { day: DAY }, rows: rowsOfDay(conversations) }],
    appliedQuery: appliedQuery({ engines, start_date: DAY, end_date: DAY }, slice),
    ...overrides,
  });
const echoes = () =>
  wh.query(
    `SELECT stream, slice_key, "day"::VARCHAR AS day, range_start::VARCHAR AS range_start, engines, query, _run_id FROM _slice_queries ORDER BY ALL`,
  );

beforeAll(async () => {
  wh = await openWarehouse(join(tmp.path, 'w.duckdb'));
});
afterAll(async () => {
  await wh.close();
  tmp.remove();
});

describe('_slice_queries', () => {
  it('holds the echo of a loaded slice with the engines it names, and the next load of the slice replaces it', async () => {
    await wh.loadSlice(visibilityLoad(['chatgpt', 'gemini'], 4));
    let rows = await echoes();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      stream: 'visibility',
      slice_key: DAY,
      day: DAY,
      range_start: DAY,
      engines: ['chatgpt', 'gemini'],
      _run_id: 'run-1',
    });
    expect(JSON.parse(String(rows[0]!.query))).toEqual({
      engines: ['chatgpt', 'gemini'],
      start_date: DAY,
      end_date: DAY,
    });

    await wh.loadSlice(visibilityLoad(['chatgpt', 'gemini', 'grok'], 5, { runId: 'run-2' }));
    rows = await echoes();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ engines: ['chatgpt', 'gemini', 'grok'], _run_id: 'run-2' });
  });

  it('keeps the echo of the rows it holds when a worse attempt is only recorded beside them', async () => {
    await wh.loadSlice(
      visibilityLoad(['claude'], 9, {
        runId: 'run-3',
        writes: [],
        attemptOnly: true,
        state: completeState({ status: 'incomplete', lastError: 'short read' }),
      }),
    );
    const rows = await echoes();
    expect(rows[0]).toMatchObject({ engines: ['chatgpt', 'gemini', 'grok'], _run_id: 'run-2' });
    const [topic] = await wh.query('SELECT conversations FROM visibility_topic_daily');
    expect(topic!.conversations).toBe(5);
  });

  it("names a brand's engines from one stream's echoes, each engine once", async () => {
    await wh.loadSlice(
      sliceBatch({
        stream: 'citations',
        sliceKey: `${DAY}..${DAY}`,
        writes: [],
        appliedQuery: appliedQuery({ engines: ['chatgpt', 'meta_ai', 'deepseek'] }, slice),
      }),
    );
    await wh.loadSlice(
      visibilityLoad(['chatgpt', 'copilot'], 3, { sliceKey: '2026-11-19', day: '2026-11-19', writes: [] }),
    );
    const visibility = await wh.echoedEngines('visibility');
    expect(visibility.get(7)).toEqual(['chatgpt', 'copilot', 'gemini', 'grok']);
    expect((await wh.echoedEngines('citations')).get(7)).toEqual(['chatgpt', 'deepseek', 'meta_ai']);
    expect(visibility.has(8)).toBe(false);
  });

  it('reaches the published copy with the slice, by a full copy and by an incremental one', async () => {
    const published = join(tmp.path, 'published.duckdb');
    const publishedEngines = async () => {
      const reader = await openPublished(published);
      try {
        return (
          await reader.rows(`SELECT engines FROM _slice_queries WHERE brand_id = 9 AND stream = 'visibility'`)
        ).map((row) => row.engines);
      } finally {
        reader.close();
      }
    };
    await wh.loadSlice(visibilityLoad(['grok'], 2, { brandId: 9, runId: 'run-9' }));
    expect((await wh.publish(published)).mode).toBe('full');
    expect(await publishedEngines()).toEqual([['grok']]);
    await wh.loadSlice(visibilityLoad(['grok', 'claude'], 2, { brandId: 9, runId: 'run-10' }));
    expect((await wh.publish(published)).mode).toBe('incremental');
    expect(await publishedEngines()).toEqual([['grok', 'claude']]);

    // Loaded again with nothing to say of its engines, the slice's row goes from the published copy too.
    await wh.loadSlice(visibilityLoad([], 2, { brandId: 9, runId: 'run-11', appliedQuery: undefined }));
    expect((await wh.publish(published)).mode).toBe('incremental');
    expect(await publishedEngines()).toEqual([]);
  });

  it('goes when the slice loads again without one (no engines filter sent, no echo), and stays through a failed attempt', async () => {
    const trackedLoad = (overrides = {}) =>
      sliceBatch({
        stream: 'tracked_urls',
        sliceKey: '2026-11-18',
        day: '2026-11-18',
        brandId: 11,
        writes: [],
        ...overrides,
      });
    const sent = (engines: string[]) => sentEnginesQuery(engines, { from: '2026-11-18', to: '2026-11-18' });
    const ofSlice = () => wh.query(`SELECT engines, sent_engines FROM _slice_queries WHERE brand_id = 11`);
    const journaled = async () =>
      Number(
        (
          await wh.query(
            `SELECT count(*) AS n FROM _publish_journal WHERE brand_id = 11 AND table_name = '_slice_queries'`,
          )
        )[0]!.n,
      );
    await wh.loadSlice(trackedLoad({ appliedQuery: sent(['claude', 'chatgpt']) }));
    expect(await ofSlice()).toEqual([{ engines: ['claude', 'chatgpt'], sent_engines: ['claude', 'chatgpt'] }]);
    expect(await journaled()).toBe(1);

    // api.engines removed: the slice's rows now hold every engine's pages, which the row had gone on denying.
    await wh.loadSlice(trackedLoad({ runId: 'run-12' }));
    expect(await ofSlice()).toEqual([]);
    expect(await journaled()).toBe(2);
    // With no row to drop, nothing is journaled for the next publish to copy.
    await wh.loadSlice(trackedLoad({ runId: 'run-13' }));
    expect(await journaled()).toBe(2);

    // A failed attempt leaves the rows, and so the row that describes them.
    await wh.loadSlice(trackedLoad({ runId: 'run-14', appliedQuery: sent(['claude']) }));
    await wh.loadSlice(
      trackedLoad({ runId: 'run-15', state: completeState({ status: 'failed', lastError: 'HTTP 500' }) }),
    );
    expect(await ofSlice()).toEqual([{ engines: ['claude'], sent_engines: ['claude'] }]);
  });

  it('finds, in one query, the days of each brand and stream read under another engines filter, before a day of its own', async () => {
    const load = (brandId: number, stream: string, day: string, sent: string[] | undefined) =>
      wh.loadSlice(
        sliceBatch({
          stream,
          sliceKey: day,
          day,
          brandId,
          writes: [],
          ...(sent ? { appliedQuery: sentEnginesQuery(sent, { from: day, to: day }) } : {}),
        }),
      );
    for (const day of ['2026-11-10', '2026-11-11', '2026-11-12']) {
      await load(21, 'tracked_urls', day, ['grok']);
      await load(21, 'swot', day, undefined);
      await load(22, 'tracked_urls', day, undefined);
    }
    const found = await wh.daysOfOtherEngines(
      [
        { brandId: 21, stream: 'tracked_urls', before: '2026-11-12' },
        { brandId: 21, stream: 'swot', before: '2026-11-13' },
        { brandId: 22, stream: 'tracked_urls', before: '2026-11-11' },
        { brandId: 23, stream: 'tracked_urls', before: '2026-11-13' },
      ],
      ['grok'],
    );
    expect(Object.fromEntries(found)).toEqual({
      '21|swot': { first: '2026-11-10', last: '2026-11-12', days: 3, sent: '' },
      '22|tracked_urls': { first: '2026-11-10', last: '2026-11-10', days: 1, sent: '' },
    });
    expect(
      Object.fromEntries(
        await wh.daysOfOtherEngines([{ brandId: 21, stream: 'tracked_urls', before: '2026-11-12' }], []),
      ),
    ).toEqual({
      '21|tracked_urls': { first: '2026-11-10', last: '2026-11-11', days: 2, sent: 'grok' },
    });
  });

  it("names the brand's engines from the echoes of slices that sent no filter, those of api.engines only when there are none", async () => {
    const load = (day: string, engines: string[], sent: string[] | undefined) =>
      wh.loadSlice(
        sliceBatch({
          stream: 'visibility',
          sliceKey: day,
          day,
          brandId: 12,
          writes: [],
          appliedQuery: appliedQuery({ engines }, { from: day, to: day }, 'engines', sent),
        }),
      );
    // Days loaded while api.engines asked for two: all the echoes say so far.
    await load('2026-11-13', ['claude', 'chatgpt'], ['claude', 'chatgpt']);
    expect((await wh.echoedEngines('visibility')).get(12)).toEqual(['chatgpt', 'claude']);
    // api.engines emptied: the report's default, the brand's engines, is what to break down by.
    await load('2026-11-18', ['gemini', 'claude'], undefined);
    // chatgpt had stayed, asked for a day at a time for as long as the old echoes were kept.
    expect((await wh.echoedEngines('visibility')).get(12)).toEqual(['claude', 'gemini']);
  });
});
