import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeWindows } from '../../src/cli/doctor/probe-context.js';
import { addDays } from '../../src/days.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { spawnDoctor } from '../support/doctor.js';
import { tempDir } from '../support/tmp.js';

/**
 * `bvsync doctor` against APIs whose names are not bvsync's: it said which name was wrong, not which was right. It
 * now tries candidates (name-candidates.ts) by the same evidence as the table, prints what to set, and `--fix`
 * writes it into the config file.
 */

const dir = tempDir('doctor-names');
/** The simulators' today, which doctor takes for its own (spawnDoctor sets BVSYNC_TODAY). */
const TODAY = '2026-11-20';
const data = { seed: 3, brands: 1, days: 12, scale: 30, today: TODAY };
const sims: RunningSimulator[] = [];

async function simulator(options: Partial<SimulatorOptions>): Promise<RunningSimulator> {
  const sim = await startSimulator({ ...data, ...options });
  sims.push(sim);
  return sim;
}

beforeAll(() => undefined);
afterAll(async () => {
  await Promise.all(sims.map((sim) => sim.close()));
  dir.remove();
});

/** A config file naming a SWOT statement with answers in doctor's week, so endpoint 20 is checkable. */
async function configFile(
  sim: RunningSimulator,
  name: string,
  swotNames: Record<string, string> = {},
  api: Record<string, unknown> = {},
): Promise<string> {
  const window = probeWindows(addDays(TODAY, -1)).wide;
  let statement = sim.truth.world(1).swotStatements[0]!.id;
  for (const candidate of sim.truth.world(1).swotStatements) {
    const query = new URLSearchParams({
      [swotNames.start_date ?? 'start_date']: window.startDate,
      [swotNames.end_date ?? 'end_date']: window.endDate,
    });
    const response = await fetch(`${sim.url}/customer/v1/brands/1/swot/${candidate.id}?${query}`, {
      headers: { 'x-api-key': sim.apiKey },
    });
    if (((await response.json()) as { info: { total_rows: number } }).info.total_rows >= 3) {
      statement = candidate.id;
      break;
    }
  }
  const path = join(dir.path, `${name}.json`);
  writeFileSync(
    path,
    `${JSON.stringify({ api: { requestsPerSecond: 50, ...api }, sync: { swotStatementIds: { '1': [statement] } } }, null, 2)}\n`,
  );
  return path;
}

function doctor(sim: RunningSimulator, args: string[], cwd = dir.path): Promise<{ code: number | null; out: string }> {
  return spawnDoctor(sim, args, cwd);
}

describe('doctor proposes the right name', () => {
  it("on a lenient API, finds the spec's own field names, and --fix writes them into the config file", async () => {
    const sim = await simulator({
      params: { confirmed: 'is_actual', competitors: 'competitor_ids' },
      strictParams: false,
    });
    // The key last in "api": the comma --fix adds after it puts its line in the diff.
    const config = await configFile(sim, 'lenient', {}, { apiKey: sim.apiKey });
    const first = await doctor(sim, ['--config', config]);
    expect(first.out).toMatch(/^ {2}competitors \(7\) confirmed \(sent as "confirmed"\): "is_actual" is right: .+$/m);
    expect(first.out).toMatch(
      /^ {2}swot\/\{statement_id\} \(20\) competitors \(sent as "competitors"\): "competitor_ids" is right: .+$/m,
    );
    expect(first.out).toMatch(/^ {2}"params": \{"confirmed":"is_actual","competitors":"competitor_ids"\}$/m);
    expect(first.code).toBe(1);

    const fixed = await doctor(sim, ['--config', config, '--fix']);
    expect(fixed.out).toMatch(/^\+ +"params": \{$/m);
    expect(fixed.out).toMatch(/^\+ +"confirmed": "is_actual",?$/m);
    expect(fixed.out).toMatch(/^ok {4}doctor --fix: wrote the names found into .*lenient\.json/m);
    expect(fixed.out).toMatch(/^[-+] +"apiKey": /m);
    expect(fixed.out).not.toContain(sim.apiKey);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toMatchObject({
      api: { requestsPerSecond: 50, params: { confirmed: 'is_actual', competitors: 'competitor_ids' } },
      sync: { swotStatementIds: {} },
    });

    const again = await doctor(sim, ['--config', config]);
    expect(again.out).toMatch(/^ok {4}parameter names: /m);
    expect(again.out).not.toMatch(/names tried/);
  }, 180_000);

  it('on a strict API, finds a name only its 400 lists, for one endpoint alone', async () => {
    const sim = await simulator({ endpointParams: { 'swot/{statement_id}': { type: 'swot_type' } } });
    sim.setKnobs({ unknownParamsListed: true });
    const config = await configFile(sim, 'strict-listed');
    const { out } = await doctor(sim, ['--config', config]);
    expect(out).toMatch(/^ {2}swot\/\{statement_id\} \(20\) type \(sent as "type"\): "swot_type" is right: .+$/m);
    // templates (10) reads "type" as sent: the name found goes to endpoint 20 alone.
    expect(out).toMatch(/^ {2}"endpointParams": \{"swot\/\{statement_id\}":\{"type":"swot_type"\}\}$/m);
  }, 120_000);

  it('says so when the right name is none of the candidates, naming those tried', async () => {
    const sim = await simulator({ params: { confirmed: 'only_confirmed' }, strictParams: false });
    const config = await configFile(sim, 'not-found');
    const { out } = await doctor(sim, ['--config', config]);
    expect(out).toMatch(
      /^ {2}competitors \(7\) confirmed \(sent as "confirmed"\): none of "is_actual", .+ is right; find its name in the API's documentation and set api\.params\.confirmed$/m,
    );
    expect(out).not.toMatch(/"params": \{"confirmed"/);
  }, 120_000);

  it('--fix refuses when the config came only from the environment, saying so', async () => {
    const sim = await simulator({ params: { confirmed: 'is_actual' }, strictParams: false });
    const empty = tempDir('doctor-names-env');
    try {
      const { code, out } = await doctor(sim, ['--fix'], empty.path);
      expect(out).toMatch(/"is_actual" is right/);
      expect(out).toMatch(
        /^FAIL {2}doctor --fix: the config came only from the environment \(no --config, no BVSYNC_CONFIG, no \.\/bvsync\.config\.json\), so there is no file to write/m,
      );
      expect(code).toBe(1);
    } finally {
      empty.remove();
    }
  }, 120_000);
});
