import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/days.js';
import { DEFAULT_STREAM_NAMES } from '../../src/streams/stream-names.js';
import { cliEnv, engineFixture, runBvsync, runInProcess, type EngineFixture } from '../support/engine.js';

/**
 * Every example query of sql/queries/ on a demo-like file (every stream, a week, brands 1 and 2), run as docs/tables.md
 * and the query's own header write it: `bvsync sql --file sql/queries/NN_....sql [--param brand=N]`. Each statement
 * must answer with rows, so a query that filters on a brand the file does not hold cannot pass.
 */

const TODAY = '2026-11-20';
const QUERIES = join(import.meta.dirname, '..', '..', 'sql', 'queries');
const files = readdirSync(QUERIES)
  .filter((name) => name.endsWith('.sql'))
  .sort();

let fx: EngineFixture;

beforeAll(async () => {
  fx = await engineFixture('example-queries', {
    sim: { brands: 2, days: 8, scale: 20, today: TODAY },
    config: { sync: { fetchConcurrency: 8 } },
  });
  const progress = await runInProcess(fx, {
    kind: 'backfill',
    today: TODAY,
    from: addDays(TODAY, -6),
    to: TODAY,
    streams: [...DEFAULT_STREAM_NAMES],
  });
  expect(progress.meta.status).toBe('complete');
}, 240_000);
afterAll(async () => {
  await fx?.cleanup();
});

/** The answers of `bvsync sql --format json`: one JSON array per statement that returns rows. */
function answers(stdout: string): Array<Array<Record<string, unknown>>> {
  return stdout
    .trim()
    .split(/\n(?=\[)/)
    .map((part) => JSON.parse(part) as Array<Record<string, unknown>>);
}

/** The `-- Run: npx bvsync sql ...` line of a query's header, as arguments. */
function runLine(file: string): string[] {
  const line = /^-- Run: npx bvsync (.+)$/m.exec(readFileSync(join(QUERIES, file), 'utf8'))?.[1];
  if (!line) throw new Error(`${file} has no "-- Run: npx bvsync ..." line in its header`);
  return line.trim().split(/\s+/);
}

describe('the example queries of sql/queries/', () => {
  it('are there, each with a header that says its parameters and how to run it', () => {
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const file of files) {
      const header = readFileSync(join(QUERIES, file), 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('--'))
        .join('\n');
      expect(header, file).toMatch(/^-- Question: /);
      expect(header, file).toMatch(/^-- Parameters/m);
      expect(header, file).toMatch(/^-- Columns/m);
      expect(runLine(file)).toEqual(expect.arrayContaining(['sql', '--file', `sql/queries/${file}`]));
    }
  });

  it('answer with rows for every statement and every brand, run with --file', async () => {
    const env = cliEnv(fx);
    const results = await Promise.all(
      files.map((file) => runBvsync(['sql', '--file', `sql/queries/${file}`, '--format', 'json'], env)),
    );
    files.forEach((file, i) => {
      const result = results[i]!;
      expect(result.code, `${file}: ${result.stderr}`).toBe(0);
      const statements = answers(result.stdout);
      expect(statements.length, file).toBe(
        (readFileSync(join(QUERIES, file), 'utf8').match(/;\s*(\n|$)/g) ?? []).length,
      );
      statements.forEach((rows, n) => {
        expect(rows.length, `${file}, statement ${n + 1}`).toBeGreaterThan(0);
        if ('brand_id' in rows[0]!)
          expect(new Set(rows.map((row) => row.brand_id)), `${file}, statement ${n + 1}`).toEqual(
            new Set(fx.sim.brands),
          );
      });
    });
  }, 240_000);

  it('answer for one brand only with the parameters their header shows', async () => {
    const env = cliEnv(fx);
    const results = await Promise.all(files.map((file) => runBvsync([...runLine(file), '--format', 'json'], env)));
    files.forEach((file, i) => {
      const result = results[i]!;
      expect(result.code, `${file}: ${result.stderr}`).toBe(0);
      const brand = /--param brand=(\d+)/.exec(runLine(file).join(' '))?.[1];
      for (const [n, rows] of answers(result.stdout).entries()) {
        expect(rows.length, `${file}, statement ${n + 1}`).toBeGreaterThan(0);
        if (brand && 'brand_id' in rows[0]!)
          expect(new Set(rows.map((row) => row.brand_id)), `${file}, statement ${n + 1}`).toEqual(
            new Set([Number(brand)]),
          );
      }
    });
  }, 240_000);
});
