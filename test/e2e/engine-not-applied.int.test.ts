import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../support/doctor.js';
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
 * A per-engine slice asks `engines=[engine]`; an API that drops an engine id it does not know answers for its default
 * engines instead, and says so in `info.query`. Those rows are every engine's, not the engine's: they are not loaded.
 */

const TODAY = '2026-11-20';
const DAY = '2026-11-19';

let fx: EngineFixture;
let known: string;

beforeAll(async () => {
  fx = await engineFixture('engine-not-applied', { sim: { brands: 1 } });
  known = [...fx.sim.truth.world(fx.config.brands[0]!).brand.engines].sort()[0]!;
  fx.sim.setKnobs({ unknownEngines: 'default' });
  // "ChatGPT" is no id of the simulator's: the spec omits the engines' literal strings, and a user may guess one.
  (fx.config.sync as { engineBreakdown?: string[] }).engineBreakdown = ['ChatGPT', known];
});
afterAll(async () => fx?.cleanup());

describe('a per-engine slice the API answered for other engines', () => {
  it('fails with what the echo says instead of loading every engine under one name; a known engine loads', async () => {
    const progress = await runInProcess(fx, {
      kind: 'backfill',
      today: TODAY,
      from: DAY,
      to: DAY,
      streams: ['visibility_by_engine'],
    });
    expect(progress.meta.status).toBe('incomplete');
    const states = await queryFile(
      fx.config.db,
      `SELECT slice_key, status, error_code, last_error FROM _sync_state ORDER BY slice_key`,
    );
    expect(states.map(({ slice_key, status, error_code }) => ({ slice_key, status, error_code }))).toEqual([
      { slice_key: `ChatGPT/${DAY}`, status: 'failed', error_code: 'engine_not_applied' },
      { slice_key: `${known}/${DAY}`, status: 'complete', error_code: null },
    ]);
    expect(String(states[0]!.last_error)).toMatch(
      /^asked for engine "ChatGPT" alone, the answer's info\.query says it applied \[".+"\], so its rows are not that engine's and were not loaded; set sync\.engineBreakdown/,
    );
    const engines = await queryFile(
      fx.config.db,
      'SELECT DISTINCT engine FROM visibility_topic_engine_daily ORDER BY engine',
    );
    // It had loaded the brand's every engine's answers under "ChatGPT", as many as under all of them together.
    expect(engines).toEqual([{ engine: known }]);
  }, 120_000);
});

describe('api.engines naming an id the API drops', () => {
  it('doctor names the id the echo left out, instead of calling the engines parameter and api.arrayFormat wrong', async () => {
    // The spec omits the engine ids; a user guesses one. This API drops it and answers for the ids it knows.
    const { code, out } = await runDoctor(fx.sim, fx.dir, 'guessed-engine', { engines: [known, 'gpt-4o'] }, TODAY);
    expect(out).toMatch(
      new RegExp(
        `^FAIL  api\\.engines: the API did not apply "gpt-4o": the visibility report sent engines=${known},gpt-4o and its info\\.query names ${known}\\.`,
        'm',
      ),
    );
    expect(out).not.toMatch(/^FAIL {2}api\.arrayFormat/m);
    const enginesRow = out.split('\n').find((line) => /^│ conversations \(13\) +│ engines /.test(line));
    expect(enginesRow).toMatch(/│ cannot be checked │ .*drops engine ids it does not know \(gpt-4o/);
    expect(code).toBe(1);

    const fixed = await runDoctor(fx.sim, fx.dir, 'known-engine', { engines: [known] }, TODAY);
    expect(fixed.out).toMatch(
      new RegExp(
        `^ok {4}api\\.engines: the visibility report's info\\.query applied every id sent \\(${known}\\)$`,
        'm',
      ),
    );
  }, 120_000);
});

describe('a run whose api.engines holds an id the API drops', () => {
  it('loads what the API answered, records both lists, and warns once per stream instead of passing for every engine', async () => {
    const config = writeCliConfig(fx, {
      api: { requestsPerSecond: 1000, retryBaseMs: 5, retryMaxMs: 50, engines: [known, 'gpt-4o'] },
    });
    const { code, stderr } = await runBvsync(
      ['backfill', '--from', '2026-11-18', '--to', DAY, '--streams', 'visibility', '--today', TODAY],
      cliEnv(fx, { BVSYNC_CONFIG: config }),
    );
    expect(code, stderr).toBe(0);
    const warnings = stderr.split('\n').filter((line) => line.includes('the API did not apply engine(s)'));
    // Two days, one warning: it had said nothing, and the run passed for covering gpt-4o too.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('the API did not apply engine(s) \\"gpt-4o\\" of api.engines');
    const echoes = await queryFile(
      fx.config.db,
      `SELECT slice_key, engines, sent_engines FROM _slice_queries WHERE stream = 'visibility' ORDER BY slice_key`,
    );
    expect(echoes).toEqual([
      { slice_key: '2026-11-18', engines: [known], sent_engines: [known, 'gpt-4o'] },
      { slice_key: DAY, engines: [known], sent_engines: [known, 'gpt-4o'] },
    ]);
  }, 120_000);
});
