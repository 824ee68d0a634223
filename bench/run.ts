/**
 * `npm run bench -- <name>` runs `bench/<name>.ts`'s exported `run()`; with no name, every registered
 * scenario runs and one table shows all their results: each figure, the reference measured in the same run,
 * their ratio, the target and whether it is met. Add a scenario: write bench/<name>.ts exporting
 * `run(): Promise<BenchResult[]>` and add its name to SCENARIOS. How to read the table: bench/README.md.
 */
import { textTable } from '../src/text-table.js';
import { pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchResult {
  scenario: string;
  metric: string;
  value: number;
  unit: string;
  /** What the figure is compared with, measured in the same run (same unit). */
  reference?: number;
  /** The target in words, e.g. `>= 0.5 x reference`. */
  target?: string;
  /** Whether the target is met; absent for figures without a target. */
  met?: boolean;
  note?: string;
}

/** The five targets of the performance issue first, then the measurements behind earlier design choices. */
const SCENARIOS = [
  'throughput',
  'rate-limit',
  'calls',
  'memory',
  'growth',
  'naive',
  'simulator',
  'load',
  'small-slices',
  'stream-costs',
  'redis-latency',
  'round-trips',
  'waiting-removal',
  'writer-keeps-up',
  'cli-start',
  'year',
];

async function runOne(name: string): Promise<BenchResult[]> {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`bad benchmark name ${JSON.stringify(name)}`);
  const file = join(dirname(fileURLToPath(import.meta.url)), `${name}.ts`);
  const module = (await import(pathToFileURL(file).href)) as { run?: () => Promise<BenchResult[]> };
  if (typeof module.run !== 'function') throw new Error(`bench/${name}.ts exports no run()`);
  return module.run();
}

function format(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '';
  const abs = Math.abs(value);
  if (abs >= 100) return Math.round(value).toLocaleString('en-US');
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

const names = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const results: BenchResult[] = [];
for (const name of names.length > 0 ? names : SCENARIOS) {
  process.stderr.write(`bench: ${name} ...\n`);
  const started = performance.now();
  results.push(...(await runOne(name)));
  process.stderr.write(`bench: ${name} took ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
const table = textTable(['scenario', 'metric', 'figure', 'unit', 'reference', 'ratio', 'target', 'met', 'note']);
for (const r of results) {
  const ratio = r.reference ? r.value / r.reference : undefined;
  table.push([
    r.scenario,
    r.metric,
    format(r.value),
    r.unit,
    format(r.reference),
    ratio === undefined ? '' : ratio.toFixed(2),
    r.target ?? '',
    r.met === undefined ? '' : r.met ? 'yes' : 'NO',
    r.note ?? '',
  ]);
}
process.stdout.write(`${table.toString()}\n`);
if (process.argv.includes('--markdown')) {
  // The same figures as a Markdown table, for docs/performance.md.
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  process.stdout.write(
    '\n| scenario | metric | figure | reference | ratio | target | met |\n|---|---|---|---|---|---|---|\n',
  );
  for (const r of results.filter((result) => result.target !== undefined)) {
    const ratio = r.reference ? (r.value / r.reference).toFixed(2) : '';
    process.stdout.write(
      `| ${r.scenario} | ${cell(r.metric)} | ${format(r.value)} ${r.unit} | ${format(r.reference)} | ${ratio} | ${cell(r.target ?? '')} | ${r.met ? 'yes' : '**no**'} |\n`,
    );
  }
}
const missed = results.filter((r) => r.met === false);
if (missed.length)
  process.stdout.write(`targets missed: ${missed.map((r) => `${r.scenario} (${r.metric})`).join('; ')}\n`);
