import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineFixture, queryFile, runInProcess, type EngineFixture } from '../support/engine.js';
import { runDoctor } from '../support/doctor.js';

/**
 * The spec shows the query parameters of each endpoint by meaning and none of their names, so one API may name the
 * range `since`/`until` on conversations and `start_date`/`end_date` on tracked URLs. One `api.params` for every
 * endpoint could not say that: mapped for conversations, tracked URLs were sent names they ignore and the API's
 * default thirty days were filed under each day, the run complete (tracked URLs echo no query to check against).
 * `api.endpointParams` names them per endpoint.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-18';
const TO = '2026-11-19';
const SINCE_UNTIL = { start_date: 'since', end_date: 'until' };
const TRACKED_URLS_OWN = { 'tracked-urls': { start_date: 'start_date', end_date: 'end_date' } };

let named: EngineFixture;
let reference: EngineFixture;

beforeAll(async () => {
  const world = { brands: 1, days: 6, scale: 20, today: TODAY };
  // Lenient, as the API of the report was: a name it does not know is ignored, not refused.
  [named, reference] = await Promise.all([
    engineFixture('endpoint-params', {
      sim: { ...world, params: SINCE_UNTIL, endpointParams: TRACKED_URLS_OWN, strictParams: false },
    }),
    engineFixture('endpoint-params-ref', { sim: world }),
  ]);
});
afterAll(async () => Promise.all([named?.cleanup(), reference?.cleanup()]));

const TRACKED_DAYS = `SELECT tracked_url_id, "day"::VARCHAR AS day, citations, conversations FROM tracked_url_daily ORDER BY ALL`;
const CONVERSATION_DAYS = `SELECT "day"::VARCHAR AS day, count(*)::INTEGER AS n FROM conversations GROUP BY ALL ORDER BY ALL`;

describe('an API that names the range otherwise on one endpoint', () => {
  it('loads each endpoint under its own names with api.endpointParams: the same rows as an API of the default names', async () => {
    named.config.api = { ...named.config.api, params: SINCE_UNTIL, endpointParams: TRACKED_URLS_OWN };
    const streams = ['tracked_urls', 'conversations'];
    const [progress, expected] = await Promise.all([
      runInProcess(named, { kind: 'backfill', today: TODAY, from: FROM, to: TO, streams }),
      runInProcess(reference, { kind: 'backfill', today: TODAY, from: FROM, to: TO, streams }),
    ]);
    expect(progress.meta.status).toBe('complete');
    expect(expected.meta.status).toBe('complete');
    const tracked = await queryFile(named.config.db, TRACKED_DAYS);
    expect(tracked.length).toBeGreaterThan(0);
    expect(tracked).toEqual(await queryFile(reference.config.db, TRACKED_DAYS));
    expect(await queryFile(named.config.db, CONVERSATION_DAYS)).toEqual(
      await queryFile(reference.config.db, CONVERSATION_DAYS),
    );
  }, 120_000);

  it('doctor says which endpoint needs names of its own, and passes those names once they are set', async () => {
    const run = (api: Record<string, unknown>) =>
      runDoctor(named.sim, named.dir, `doctor-${Object.keys(api).length}`, api);
    const trackedRow = (out: string, param: string) =>
      out.split('\n').find((line) => /^│ tracked-urls \(3\)/.test(line) && line.includes(`│ ${param} `));

    const globalOnly = await run({ params: SINCE_UNTIL });
    expect(trackedRow(globalOnly.out, 'start_date')).toMatch(/│ since +│ wrong/);
    expect(globalOnly.out).toMatch(
      /set api\.params; names are right on other endpoints, so set api\.endpointParams\["tracked-urls"\]\.(start_date|end_date)/,
    );
    expect(globalOnly.code).toBe(1);

    const perEndpoint = await run({ params: SINCE_UNTIL, endpointParams: TRACKED_URLS_OWN });
    expect(trackedRow(perEndpoint.out, 'start_date')).toMatch(/│ start_date +│ verified/);
    expect(trackedRow(perEndpoint.out, 'end_date')).toMatch(/│ end_date +│ verified/);
    expect(perEndpoint.out).not.toMatch(/api\.endpointParams\[/);
  }, 120_000);
});
