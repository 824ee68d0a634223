import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { recordUncounted } from '../../src/engine/run/cancel-run.js';
import type { LoadProcessorDeps } from '../../src/engine/writer/load-context.js';
import { openQueues } from '../../src/engine/jobs/queues.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import { createLogger } from '../../src/log.js';
import { workingPathFor } from '../../src/warehouse/paths.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { queryFile } from '../support/engine.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';
import { tempDir } from '../support/tmp.js';
import { parseConfig } from '../../src/configuration.js';

/**
 * The writer's side of a cancel's calls (`uncounted` jobs): they reach the run's `_sync_runs` row, except those of a
 * removed commit whose slice the writer had committed anyway, inside another job's transaction.
 */

const prefix = uniquePrefix('uncounted-calls');
const redis = testRedis();
const tmp = tempDir('uncounted-calls');
const db = join(tmp.path, 'bv.duckdb');
let warehouse: Warehouse;
let deps: LoadProcessorDeps;

beforeAll(async () => {
  warehouse = await openWarehouse(workingPathFor(db));
  const config = parseConfig({
    api: { url: 'http://127.0.0.1:9', apiKey: 'not-used' },
    brands: [1],
    db,
    redisPrefix: prefix,
  });
  const runs = new RunStore(redis, prefix);
  deps = {
    redis,
    prefix,
    queues: openQueues(redis, prefix),
    runs,
    warehouse,
    config,
    log: createLogger({ level: 'silent', pretty: false }),
    onWriterFault: () => undefined,
    stopSignal: new AbortController().signal,
  };
});
afterAll(async () => {
  await deps.queues.close();
  await warehouse.close();
  await deletePrefix(redis, prefix);
  redis.disconnect();
  tmp.remove();
});

const calls = (requests: number) => ({ requests, retries: 0, rateLimited: 0 });

describe('calls no commit carried', () => {
  it('are added to the run, but not those of a removed commit whose slice was committed after all', async () => {
    const runId = 'run-cancelled-1';
    await warehouse.startRun({ runId, kind: 'backfill', brands: [1], streams: ['conversations'] });
    // Slice A was taken into another commit's transaction before the cancel removed its job: its calls are counted.
    await deps.runs.create({
      runId,
      kind: 'backfill',
      brands: [1],
      streams: ['conversations'],
      today: '2026-11-20',
      from: null,
      to: null,
      status: 'cancelled',
      startedAt: new Date().toISOString(),
      finishedAt: null,
      phase: 1,
      published: null,
      error: null,
    });
    await deps.runs.recordOutcome(runId, {
      sliceId: 'A',
      brandId: 1,
      stream: 'conversations',
      status: 'complete',
      rows: 1,
      rejects: 0,
      ...calls(5),
    });
    await recordUncounted(deps, {
      runId,
      source: 'removed',
      ...calls(2),
      commits: [
        { sliceId: 'A', ...calls(5) },
        { sliceId: 'B', ...calls(7) },
      ],
    });
    const [row] = await warehouse.query('SELECT requests, status FROM _sync_runs WHERE run_id = $1', [runId]);
    expect(row).toEqual({ requests: 9, status: 'running' });
  });

  it('of a run recorded cancelled already are published too', async () => {
    const runId = 'run-cancelled-2';
    await warehouse.startRun({ runId, kind: 'backfill', brands: [1], streams: ['conversations'] });
    await warehouse.finishRun(runId, 'cancelled');
    await warehouse.publish(db);
    await recordUncounted(deps, { runId, source: 'slice stopped', ...calls(4), retries: 1, commits: [] });
    const [row] = await queryFile(db, 'SELECT requests, retries, status FROM _sync_runs WHERE run_id = ?', [runId]);
    expect(row).toEqual({ requests: 4, retries: 1, status: 'cancelled' });
  });
});
