/**
 * Scenario 5, against a naive script: what a user would write in an afternoon — `fetch` every page of every day in
 * turn, then one INSERT per conversation (its brands as a JSON column) into DuckDB — against a bvsync backfill of the
 * same data: 30 days x 1,000 answers, the simulator answering after 50 ms, no rate limit. Each gets a fresh
 * simulator process and an empty file. Target: bvsync >= 10x faster. Run the script alone:
 * `node bin/run-ts.js bench/naive.ts` (it starts its own simulator).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

import { tempDir } from '../test/support/tmp.js';
import { conversationsSpec, daysBack, runInChild, startSimProcess, withSimulator } from './harness.js';
import type { BenchResult } from './run.js';

const DAYS = 30;
const PER_DAY = 1_000;
const LATENCY_MS = 50;
/** Bounds of the naive loop, so a simulator that never ends a day cannot keep it going. */
const MAX_PAGES_PER_DAY = 1_000;
const MAX_SECONDS = 600;

interface Conversation {
  id: number;
  date: string;
  model: string;
  mentioned: boolean;
  recommended?: boolean | null;
  position?: number | null;
  brands?: unknown[];
}

/** The naive script itself: returns how many conversations it stored. */
export async function naiveSync(baseUrl: string, apiKey: string, dbPath: string, days: string[]): Promise<number> {
  const instance = await DuckDBInstance.create(dbPath);
  const db = await instance.connect();
  await db.run(`CREATE TABLE IF NOT EXISTS conversations (
    id BIGINT, date TIMESTAMPTZ, model VARCHAR, mentioned BOOLEAN, recommended BOOLEAN, position INTEGER, brands JSON)`);
  let stored = 0;
  const deadline = performance.now() + MAX_SECONDS * 1000;
  for (const day of days) {
    for (let page = 1; page <= MAX_PAGES_PER_DAY; page++) {
      if (performance.now() > deadline) throw new Error(`the naive script ran past ${MAX_SECONDS} s`);
      const response = await fetch(
        `${baseUrl}/customer/v1/brands/1/conversations?start_date=${day}&end_date=${day}&page=${page}&page_size=100`,
        {
          headers: { 'X-API-Key': apiKey },
        },
      );
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = (await response.json()) as { data: Conversation[]; info: { total_rows: number } };
      for (const c of body.data) {
        await db.run('INSERT INTO conversations VALUES ($1, $2, $3, $4, $5, $6, $7)', [
          c.id,
          c.date,
          c.model,
          c.mentioned,
          c.recommended ?? null,
          c.position ?? null,
          JSON.stringify(c.brands ?? []),
        ]);
        stored++;
      }
      if (page * 100 >= body.info.total_rows) break;
    }
  }
  db.closeSync();
  instance.closeSync();
  return stored;
}

const allDays = () => Array.from({ length: DAYS }, (_, i) => daysBack(DAYS - 1 - i));

async function timeNaive(): Promise<{ seconds: number; records: number }> {
  const sim = await startSimProcess({ scale: PER_DAY, days: DAYS, latencyMs: LATENCY_MS });
  const tmp = tempDir('bench-naive');
  try {
    const started = performance.now();
    const records = await naiveSync(sim.url, sim.apiKey, join(tmp.path, 'naive.duckdb'), allDays());
    return { seconds: (performance.now() - started) / 1000, records };
  } finally {
    await sim.stop();
    tmp.remove();
  }
}

async function timeBvsync(): Promise<{ seconds: number; records: number; requests: number }> {
  return withSimulator('bench-naive-bv', { scale: PER_DAY, days: DAYS, latencyMs: LATENCY_MS }, async (context) => {
    const report = await runInChild(conversationsSpec(context, DAYS, { timeoutMs: 300_000 }));
    if (report.status !== 'complete') throw new Error(`the backfill ended ${report.status}`);
    return { seconds: report.seconds, records: report.records, requests: report.requests };
  });
}

export async function run(): Promise<BenchResult[]> {
  const naive = await timeNaive();
  const bvsync = await timeBvsync();
  if (naive.records !== bvsync.records)
    throw new Error(`the naive script stored ${naive.records} conversations, bvsync ${bvsync.records}`);
  const speedup = naive.seconds / bvsync.seconds;
  return [
    {
      scenario: 'naive',
      metric: `speedup over a naive script, ${DAYS} days x ${PER_DAY.toLocaleString('en-US')}, ${LATENCY_MS} ms latency`,
      value: speedup,
      unit: 'x',
      target: '>= 10 x',
      met: speedup >= 10,
      note: `naive ${naive.seconds.toFixed(1)} s, bvsync ${bvsync.seconds.toFixed(1)} s (${naive.records.toLocaleString('en-US')} conversations, bvsync also their brand rows)`,
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const r of await run()) process.stdout.write(`${r.metric}: ${r.value.toFixed(2)} ${r.unit} (${r.note})\n`);
}
