import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineFixture, queryFile, runInProcess, type EngineFixture } from '../support/engine.js';

/**
 * Values from the config or the API that try to break out — path traversal, query and fragment characters,
 * quotes, SQL, non-ASCII — travel as data: path segments and query values are encoded, SQL is parameterised,
 * Redis keys and job ids are derived, not trusted.
 */

const HOSTILE_PHRASES = [
  `it's "quoted" & ?page=2#frag`,
  `x'); DROP TABLE conversations; --`,
  'ünïcödé ../../etc/passwd',
  'shoe', // a phrase the simulator's catalog holds, so rows load beside the hostile ones
];

let fx: EngineFixture;
beforeAll(async () => {
  fx = await engineFixture('hostile', {
    sim: { brands: 1 },
    config: { sync: { phrases: HOSTILE_PHRASES, domains: ['bücher.example', 'https://WWW.Example.org/a?b#c'] } },
  });
});
afterAll(async () => fx?.cleanup());

describe('hostile values', () => {
  it('travel as data through the API, Redis, BullMQ and DuckDB', async () => {
    const progress = await runInProcess(fx, {
      kind: 'backfill',
      today: '2026-11-20',
      from: '2026-11-20',
      to: '2026-11-20',
      streams: ['fanouts_by_phrase', 'competitors', 'tracked_urls', 'domain_details'],
    });
    expect(progress.meta.status).toBe('complete');

    const phraseRequests = fx.sim.requestLog().filter((entry) => entry.path.endsWith('/fanouts/by-phrase'));
    expect(phraseRequests.map((entry) => entry.query.phrase).sort()).toEqual([...HOSTILE_PHRASES].sort());

    const domainPaths = fx.sim
      .requestLog()
      .filter((entry) => entry.path.includes('/citations/domains/'))
      .map((entry) => entry.path);
    expect(domainPaths.some((path) => path.endsWith('/xn--bcher-kva.example'))).toBe(true);
    expect(domainPaths.some((path) => path.endsWith('/example.org'))).toBe(true);
    expect(domainPaths.every((path) => /\/citations\/domains\/[a-z0-9.-]+$/.test(path))).toBe(true);

    const states = await queryFile(
      fx.config.db,
      "SELECT slice_key, status FROM _sync_state WHERE stream = 'fanouts_by_phrase' ORDER BY slice_key",
    );
    expect(states.map((row) => row.slice_key).sort()).toEqual(
      HOSTILE_PHRASES.map((phrase) => `phrase=${phrase}`).sort(),
    );
    expect(states.every((row) => row.status === 'complete')).toBe(true);
    const tables = await queryFile(
      fx.config.db,
      "SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'conversations'",
    );
    expect(tables[0]!.n).toBe(1);
    const shoes = await queryFile(
      fx.config.db,
      "SELECT count(*)::INTEGER AS n FROM fanouts_by_phrase WHERE phrase = 'shoe'",
    );
    expect(shoes[0]!.n).toBeGreaterThan(0);
  });
});
