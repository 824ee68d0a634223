import { describe, expect, it } from 'vitest';
import {
  skipCompleteBackfill,
  skipCompleteBackfills,
  type SkipCompleteBackfill,
} from '../../src/engine/plan/skip-complete-backfill.js';
import { skipCompleteCommand } from '../../src/cli/run/skip-complete-command.js';
import type { DimensionReads } from '../../src/warehouse/state/dimension-reads.js';
import { parseConfig } from '../../src/configuration.js';

const sync = parseConfig({ sync: { conversationsByTopic: true } }).sync;
const today = '2026-11-20';

/**
 * A file whose brand 1 has topic 3 (topic 9 was deleted), a competitor at a.example, a tracked page at b.example
 * listed last on 2026-11-10, and answers of chatgpt alone.
 */
const reads: DimensionReads = {
  brandColumn: async (table, column) => {
    if (table === 'topics' && column === 'id') return [3];
    if (table === 'competitors' && column === 'website') return ['https://a.example'];
    return [];
  },
  listedPages: async (_brandId, since) =>
    since !== undefined && since <= '2026-11-10' ? ['https://b.example/pricing'] : [],
  echoedEngines: async () => new Map([[1, ['chatgpt']]]),
};

const slice = (stream: string, key: string) => ({ brandId: 1, stream, key, day: key.slice(-10) });

describe('skipCompleteBackfill', () => {
  it('counts only the slices a backfill still plans: not those of a topic deleted or an engine gone', async () => {
    const found = await skipCompleteBackfill({
      notComplete: [
        slice('conversations', 'topic-9/2026-11-10'),
        slice('visibility_by_engine', 'perplexity/2026-11-11'),
        slice('conversations', 'topic-3/2026-11-12'),
        slice('visibility_by_engine', 'chatgpt/2026-11-13'),
      ],
      sync,
      today,
      reads,
    });
    expect(found).toEqual({
      from: '2026-11-12',
      to: '2026-11-13',
      brands: [1],
      streams: ['conversations', 'visibility_by_engine'],
      slices: 2,
    });
  });

  it('plans again over the days it keeps, as the backfill over them would: a page listed before them counts no more', async () => {
    const found = await skipCompleteBackfill({
      notComplete: [
        slice('conversations', 'topic-9/2026-11-10'),
        slice('domain_details', 'b.example/2026-11-12'),
        slice('domain_details', 'a.example/2026-11-14'),
      ],
      sync,
      today,
      reads,
    });
    // Over 11-10..11-14, b.example is a domain of a page listed in the window; over 11-12..11-14 it is not.
    expect(found).toEqual({
      from: '2026-11-14',
      to: '2026-11-14',
      brands: [1],
      streams: ['domain_details'],
      slices: 1,
    });
  });

  it('advises nothing when a backfill plans none of them', async () => {
    expect(
      await skipCompleteBackfill({ notComplete: [slice('conversations', 'topic-9/2026-11-10')], sync, today, reads }),
    ).toBeUndefined();
    expect(await skipCompleteBackfill({ notComplete: [], sync, today, reads })).toBeUndefined();
  });
});

describe('skipCompleteBackfills', () => {
  it('gives each stream its own days, so no stream is read far from its own slices; streams of the same days share one', async () => {
    const found = await skipCompleteBackfills({
      notComplete: [
        slice('conversations', 'topic-3/2026-05-02'),
        slice('visibility_by_engine', 'chatgpt/2026-11-12'),
        slice('visibility_by_engine', 'chatgpt/2026-11-13'),
        slice('tracked_urls', '2026-11-12'),
        slice('tracked_urls', '2026-11-13'),
      ],
      sync,
      today,
      reads,
    });
    // conversations by topic fan out over visibility's topics: a later phase, so after, whatever its days.
    expect(found).toEqual([
      {
        from: '2026-11-12',
        to: '2026-11-13',
        brands: [1],
        streams: ['tracked_urls', 'visibility_by_engine'],
        slices: 4,
      },
      { from: '2026-05-02', to: '2026-05-02', brands: [1], streams: ['conversations'], slices: 1 },
    ]);
  });

  const plain = parseConfig({}).sync;
  const none: DimensionReads = {
    brandColumn: async () => [],
    listedPages: async () => [],
    echoedEngines: async () => new Map(),
  };
  const of = (brandId: number, stream: string, day: string) => ({ brandId, stream, key: day, day });

  it("gives each brand its own days too: a brand added last week is not read from another's failure of months ago", async () => {
    const found = await skipCompleteBackfills({
      notComplete: [of(1, 'visibility', '2026-05-02'), of(2, 'visibility', '2026-11-19')],
      sync: plain,
      today,
      reads: none,
    });
    expect(found).toEqual([
      { from: '2026-05-02', to: '2026-05-02', brands: [1], streams: ['visibility'], slices: 1 },
      { from: '2026-11-19', to: '2026-11-19', brands: [2], streams: ['visibility'], slices: 1 },
    ]);
  });

  it('merges only what crosses nothing else: brands of one stream and days, then streams of the same brands and days', async () => {
    const found = await skipCompleteBackfills({
      notComplete: [
        of(1, 'visibility', '2026-11-19'),
        of(2, 'visibility', '2026-11-19'),
        of(1, 'tracked_urls', '2026-11-19'),
        of(2, 'tracked_urls', '2026-11-19'),
        of(3, 'conversations', '2026-11-19'),
      ],
      sync: plain,
      today,
      reads: none,
    });
    // Brand 3's conversations stay apart: merged, the backfill would read brands 1 and 2's conversations and brand 3's visibility.
    expect(found).toEqual([
      { from: '2026-11-19', to: '2026-11-19', brands: [3], streams: ['conversations'], slices: 1 },
      { from: '2026-11-19', to: '2026-11-19', brands: [1, 2], streams: ['tracked_urls', 'visibility'], slices: 4 },
    ]);
  });

  it("puts a stream that fans out over another's rows after it, whatever their days", async () => {
    const found = await skipCompleteBackfills({
      notComplete: [slice('domain_details', 'a.example/2026-11-10'), slice('tracked_urls', '2026-11-12')],
      sync,
      today,
      reads,
    });
    expect(found.map((each) => each.streams)).toEqual([['tracked_urls'], ['domain_details']]);
  });
});

describe('skipCompleteCommand', () => {
  const backfill: SkipCompleteBackfill = {
    from: '2026-11-12',
    to: '2026-11-13',
    brands: [2, 7],
    streams: ['conversations', 'domain_details'],
    slices: 4,
  };

  it("names the streams always, and the brands when not all of the config's", () => {
    expect(skipCompleteCommand(backfill, [2, 7])).toBe(
      'bvsync backfill --streams conversations,domain_details --from 2026-11-12 --to 2026-11-13 --skip-complete',
    );
    expect(skipCompleteCommand(backfill, [2, 5, 7])).toBe(
      'bvsync backfill --brand 2,7 --streams conversations,domain_details --from 2026-11-12 --to 2026-11-13 --skip-complete',
    );
  });

  it('names the brands when the config names none, as a backfill then needs', () => {
    expect(skipCompleteCommand(backfill, [])).toContain('--brand 2,7 ');
  });
});
