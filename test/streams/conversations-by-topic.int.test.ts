import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { conversations } from '../../src/streams/conversations.js';
import { runSlice, type SliceChunk } from '../../src/streams/run-slice.js';
import type { DaySlice } from '../../src/streams/stream.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { tempDir } from '../support/tmp.js';
import { parseConfig } from '../../src/configuration.js';

const DAY = '2026-11-19';
let sim: RunningSimulator;
let warehouse: Warehouse;
const dir = tempDir('by-topic');

beforeAll(async () => {
  sim = await startSimulator({ seed: 5, brands: 1, days: 5, scale: 60, today: '2026-11-20' });
  warehouse = await openWarehouse(`${dir.path}/w.duckdb`);
});
afterAll(async () => {
  await warehouse.close();
  await sim.close();
  dir.remove();
});

async function loadSlice(slice: DaySlice<{ topicId?: number }>, byTopic: boolean, runId: string) {
  const sync = parseConfig({ sync: { conversationsByTopic: byTopic } }).sync;
  const client = createApiClient(
    { ...parseConfig({}).api, url: sim.url, apiKey: sim.apiKey },
    { retryRateLimited: true },
  );
  const chunks: SliceChunk[] = [];
  const result = await runSlice(
    conversations,
    { client, brandId: 1, slice, sync },
    { write: async (c) => void chunks.push(c), reset: async () => void (chunks.length = 0) },
  );
  await client.close();
  const targets = conversations.targets({ brandId: 1, slice });
  await warehouse.loadSlice({
    runId,
    brandId: 1,
    stream: 'conversations',
    sliceKey: slice.key,
    day: slice.day,
    rejects: [],
    state: {
      status: result.status,
      rows: result.records,
      totalRows: result.totalRows,
      attempts: 1,
      requests: 1,
      lastError: null,
    },
    writes: targets.map((t) => ({ ...t, rows: chunks.flatMap((c) => c.tables[t.table] ?? []) })),
  });
  return result;
}

describe('conversations sliced by topic', () => {
  it('turning it on over days loaded by day attributes every answer to its topic, with no key collision', async () => {
    const byDay = await loadSlice({ key: DAY, day: DAY, from: DAY, to: DAY, params: {} }, false, 'r1');
    expect(byDay.status).toBe('complete');
    const topicIds = [...new Set(sim.truth.answers(1, DAY).map((answer) => answer.topicId))];
    expect(topicIds.length).toBeGreaterThan(1);
    for (const topicId of topicIds) {
      const result = await loadSlice(
        { key: `topic-${topicId}/${DAY}`, day: DAY, from: DAY, to: DAY, params: { topicId } },
        true,
        'r2',
      );
      expect(result.status).toBe('complete');
    }
    const rows = await warehouse.query('SELECT id, topic_id FROM conversations WHERE brand_id = 1 ORDER BY id');
    const truth = new Map(sim.truth.answers(1, DAY).map((answer) => [answer.id, answer.topicId]));
    expect(rows).toHaveLength(truth.size);
    for (const row of rows) expect(Number(row.topic_id)).toBe(truth.get(Number(row.id)));
  });
});
