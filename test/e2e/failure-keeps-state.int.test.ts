import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToEnd, type RunProgress } from '../../src/engine/run/start-run.js';
import { newestCompletePastDays } from '../../src/warehouse/state/bookkeeping.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runBvsync,
  runInProcess,
  writeCliConfig,
  type EngineFixture,
} from '../support/engine.js';

/**
 * A failure never overwrites a good state. After a backfill, a sync with a key the API refuses fails every slice it
 * tries; each slice that was complete keeps its rows and its state (status, rows, total_rows, completed_at), and the
 * failure is recorded beside it. Freshness and the next sync's plan still see every day complete, and the failed run
 * still counts its failures. An incomplete re-read of a complete day does not downgrade it either.
 */

const TODAY = '2026-11-20';
// Freshness counts past days only (today is partial): read as of the next day, the backfilled TODAY is complete and past.
const DAY_AFTER = '2026-11-21';
const FROM = '2026-11-15';
const STREAMS = ['conversations', 'visibility', 'tracked_urls'];

let fx: EngineFixture;
const query = (sql: string, params?: Array<string | number>) => queryFile(fx.config.db, sql, params);
const STATE_SQL = `SELECT brand_id, stream, slice_key, status, "rows"::INTEGER AS rows, total_rows::INTEGER AS total_rows, completed_at::VARCHAR AS completed_at, run_id
                   FROM _sync_state ORDER BY ALL`;
let before: Awaited<ReturnType<typeof query>>;
let freshnessBefore: Awaited<ReturnType<typeof newestCompletePastDays>>;
let conversationsBefore: number;
let backfillRunId: string;
let refused: RunProgress;

beforeAll(async () => {
  fx = await engineFixture('failure-keeps-state', {
    sim: { brands: 1, days: 6, scale: 20, today: TODAY },
    config: { sync: { lookbackDays: 2, startDate: FROM } },
  });
  const backfill = await runInProcess(fx, { kind: 'backfill', from: FROM, to: TODAY, today: TODAY, streams: STREAMS });
  expect(backfill.meta.status).toBe('complete');
  backfillRunId = backfill.meta.runId;
  before = await query(STATE_SQL);
  freshnessBefore = await newestCompletePastDays((sql, params) => query(sql, params as string[]), DAY_AFTER);
  conversationsBefore = Number((await query('SELECT count(*)::INTEGER AS n FROM conversations'))[0]!.n);
  refused = await runToEnd({
    config: { ...fx.config, api: { ...fx.config.api, apiKey: 'bvk_not_the_right_key' } },
    redisUrl: fx.redisUrl,
    log: fx.log,
    kind: 'sync',
    brands: fx.config.brands,
    streams: STREAMS,
    today: TODAY,
    worker: { leaseTtlMs: 2_000 },
  });
}, 180_000);
afterAll(async () => fx?.cleanup());

describe('a sync with a refused key after a good backfill', () => {
  it('records its own failures: the run failed, with an error per slice it tried', async () => {
    expect(refused.meta.status).toBe('failed');
    const [run] = await query(
      'SELECT status, slices::INTEGER AS slices, errors::INTEGER AS errors FROM _sync_runs WHERE run_id = $1',
      [refused.meta.runId],
    );
    // Two lookback days of three daily streams.
    expect(run).toEqual({ status: 'failed', slices: 6, errors: 6 });
  });

  it('leaves every complete slice complete, with its rows, total_rows, completed_at and the run that loaded it', async () => {
    expect(before.length).toBe(18);
    expect(before.every((state) => state.status === 'complete' && state.run_id === backfillRunId)).toBe(true);
    expect(await query(STATE_SQL)).toEqual(before);
    expect(Number((await query('SELECT count(*)::INTEGER AS n FROM conversations'))[0]!.n)).toBe(conversationsBefore);
  });

  it('records the failure beside the state: status, error and code, time and run of the attempt', async () => {
    const attempts = await query(
      `SELECT slice_key, last_attempt_status, last_attempt_error_code, last_attempt_error, last_attempt_at > completed_at AS later
       FROM _sync_state WHERE last_attempt_run_id = $1 ORDER BY ALL`,
      [refused.meta.runId],
    );
    expect(attempts.map((row) => row.slice_key).sort()).toEqual([
      '2026-11-19',
      '2026-11-19',
      '2026-11-19',
      TODAY,
      TODAY,
      TODAY,
    ]);
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({
        last_attempt_status: 'failed',
        last_attempt_error_code: 'unauthorized',
        later: true,
      });
      expect(String(attempt.last_attempt_error)).not.toContain('bvk_not_the_right_key');
    }
  });

  it('bvsync status lists the failed attempts beside the complete rows, with the API error code', async () => {
    const result = await runBvsync(['status', '--json', '--config', writeCliConfig(fx)], cliEnv(fx));
    expect(result.code, result.stderr).toBe(0);
    const listed = (JSON.parse(result.stdout) as { slicesNotComplete: Array<Record<string, unknown>> })
      .slicesNotComplete;
    const ofRefused = listed.filter((row) => row.run_id === refused.meta.runId);
    expect(ofRefused).toHaveLength(6);
    for (const row of ofRefused)
      expect(row).toMatchObject({ status: 'complete', last_attempt: 'failed', error_code: 'unauthorized' });
  });

  it('keeps freshness: the newest complete day of every stream is where the backfill left it', async () => {
    expect(freshnessBefore.map((row) => row.newestCompleteDay)).toEqual(STREAMS.map(() => TODAY));
    expect(await newestCompletePastDays((sql, params) => query(sql, params as string[]), DAY_AFTER)).toEqual(
      freshnessBefore,
    );
  });

  it('plans the next sync from the complete days: only the lookback days are fetched again', async () => {
    const requestsBefore = fx.sim.requestLog().length;
    const next = await runInProcess(fx, { kind: 'sync', today: TODAY, streams: STREAMS });
    expect(next.meta.status).toBe('complete');
    const fetched = fx.sim
      .requestLog()
      .slice(requestsBefore)
      .map((entry) => String(entry.query.start_date ?? entry.query.day ?? ''));
    expect(new Set(fetched)).toEqual(new Set(['2026-11-19', TODAY]));
    // The good attempt replaces state and attempt alike.
    const [attempt] = await query(
      `SELECT count(*) FILTER (WHERE last_attempt_status <> 'complete')::INTEGER AS n FROM _sync_state`,
    );
    expect(attempt!.n).toBe(0);
  }, 120_000);
});

describe('an incomplete re-read of a complete slice', () => {
  it('keeps the complete rows and state, and records the incomplete attempt with its reason', async () => {
    const statesBefore = await query(STATE_SQL);
    fx.sim.setKnobs({ oddities: ['row_outside_window'] });
    const odd = await runInProcess(fx, { kind: 'sync', today: TODAY, streams: ['conversations'] });
    fx.sim.setKnobs({ oddities: [] });
    expect(odd.meta.status).toBe('incomplete');
    expect(await query(STATE_SQL)).toEqual(statesBefore);
    const attempts = await query(
      `SELECT slice_key, last_attempt_status, last_attempt_error_code, last_attempt_error FROM _sync_state WHERE last_attempt_run_id = $1 ORDER BY slice_key`,
      [odd.meta.runId],
    );
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({ last_attempt_status: 'incomplete', last_attempt_error_code: 'out_of_scope' });
      expect(attempt.last_attempt_error).toMatch(
        new RegExp(`outside the slice's window ${attempt.slice_key}\\.\\.${attempt.slice_key}`),
      );
    }
    const [run] = await query('SELECT status FROM _sync_runs WHERE run_id = $1', [odd.meta.runId]);
    expect(run!.status).toBe('incomplete');
  }, 120_000);
});
