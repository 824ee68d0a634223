import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDimensions, warehouseDimensions } from '../../src/streams/dimensions.js';
import { STREAMS } from '../../src/streams/registry.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../support/tmp.js';

/**
 * The topics `sync.conversationsByTopic` fans conversations out over are those the visibility report still names. A
 * topic deleted in the API keeps its row in `topics`, and every run had still asked for its conversations, every day.
 */

const tmp = tempDir('reported-topics');
let wh: Warehouse;

beforeAll(async () => {
  wh = await openWarehouse(join(tmp.path, 'w.duckdb'));
});
afterAll(async () => {
  await wh.close();
  tmp.remove();
});

async function topic(id: number, days: string[]): Promise<void> {
  await wh.query(`INSERT INTO topics (brand_id, id, name, _synced_at, _run_id) VALUES (7, $1, 't', now(), 'r')`, [id]);
  for (const day of days) {
    await wh.query(`INSERT INTO visibility_topic_daily (brand_id, "day", topic_id, conversations, _synced_at, _run_id) VALUES (7, $1::DATE, $2, 3, now(), 'r')`, [day, id]);
  }
}

describe('the topics the visibility report still names', () => {
  it('are every topic before a day was read, then those with answers in the week up to the latest day, or from the run on', async () => {
    await wh.query(`INSERT INTO topics (brand_id, id, name, _synced_at, _run_id) VALUES (7, 1, 't', now(), 'r')`);
    expect(await wh.reportedTopics(7)).toEqual([1]);
    await wh.query('DELETE FROM topics');

    await topic(1, ['2026-11-10', '2026-11-20']);
    // Named until the 12th, then deleted: the reports of the week before the 20th no longer name it.
    await topic(2, ['2026-11-10', '2026-11-12']);
    // Without answers on the latest day only: still named.
    await topic(3, ['2026-11-18']);
    expect(await wh.reportedTopics(7)).toEqual([1, 3]);
    expect(await wh.reportedTopics(8)).toEqual([]);
    // A run reading the days it had answers asks for it.
    expect(await wh.reportedTopics(7, '2026-11-11')).toEqual([1, 2, 3]);
    expect(await wh.reportedTopics(7, '2026-11-13')).toEqual([1, 3]);
  });

  it('are the topics conversations fan out over', async () => {
    const dimensions = await readDimensions(STREAMS.values(), new Set(['topicIds']), warehouseDimensions(wh), 7, []);
    expect(dimensions.topicIds).toEqual([1, 3]);
    expect((await readDimensions(STREAMS.values(), new Set(['topicIds']), warehouseDimensions(wh, undefined, '2026-11-10'), 7, [])).topicIds).toEqual([1, 2, 3]);
  });
});
