/**
 * `npm run bench -- <name>` runs `bench/<name>.ts`'s exported `run()`; with no name, every registered
 * scenario runs and one table shows all their results. Add a scenario: write bench/<name>.ts exporting
 * `run(): Promise<BenchResult[]>` and add its name to SCENARIOS.
 */
import Table from 'cli-table3';
import { pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchResult {
  scenario: string;
  metric: string;
  value: number;
  unit: string;
  note?: string;
}

const SCENARIOS = ['simulator'];

async function runOne(name: string): Promise<BenchResult[]> {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`bad benchmark name ${JSON.stringify(name)}`);
  const file = join(dirname(fileURLToPath(import.meta.url)), `${name}.ts`);
  const module = (await import(pathToFileURL(file).href)) as { run?: () => Promise<BenchResult[]> };
  if (typeof module.run !== 'function') throw new Error(`bench/${name}.ts exports no run()`);
  return module.run();
}

const names = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const results: BenchResult[] = [];
for (const name of names.length > 0 ? names : SCENARIOS) {
  process.stderr.write(`bench: ${name} ...\n`);
  results.push(...(await runOne(name)));
}
const table = new Table({ head: ['scenario', 'metric', 'value', 'unit', 'note'] });
for (const r of results) {
  table.push([r.scenario, r.metric, r.value >= 100 ? Math.round(r.value).toLocaleString('en-US') : r.value.toFixed(2), r.unit, r.note ?? '']);
}
process.stdout.write(`${table.toString()}\n`);
