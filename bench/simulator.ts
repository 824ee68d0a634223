/**
 * The simulator's own serve rate: conversation pages of 100 records over a 100-day range, at 100 and at
 * 10,000 answers per brand per day, from a separate process (the CLI) so client and server do not share a
 * thread. Also: the first page of a cold 100-day range, and generating one day of 10,000 answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import type { BenchResult } from './run.js';

const TODAY = '2026-11-20';
const FIRST_DAY = '2026-08-13'; // 100 days ending on TODAY
const CONNECTIONS = 8;
const SECONDS = 3;

async function startCli(scale: number): Promise<{ child: ChildProcess; url: string; apiKey: string }> {
  const child = spawn(
    process.execPath,
    [
      'bin/bvsync.js',
      'simulate',
      '--port',
      '0',
      '--json',
      '--today',
      TODAY,
      '--days',
      '100',
      '--scale',
      String(scale),
      '--brands',
      '1',
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  const facts = JSON.parse(line) as { url: string; api_key: string };
  return { child, url: facts.url, apiKey: facts.api_key };
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  await once(child, 'exit');
}

async function get(pool: Pool, apiKey: string, path: string): Promise<{ status: number; body: any }> {
  const response = await pool.request({ method: 'GET', path, headers: { 'x-api-key': apiKey } });
  return { status: response.statusCode, body: await response.body.json() };
}

/** Only the info of a page: parsing 100 records in the bench would measure the client, not the simulator. */
async function getInfo(
  pool: Pool,
  apiKey: string,
  path: string,
): Promise<{ status: number; info: { page: number; page_size: number; total_rows: number } }> {
  const response = await pool.request({ method: 'GET', path, headers: { 'x-api-key': apiKey } });
  const text = await response.body.text();
  const at = text.lastIndexOf('"info":');
  return { status: response.statusCode, info: JSON.parse(text.slice(at + 7, -1)) };
}

/**
 * Pages fetched for `seconds` with CONNECTIONS in flight, all from days already generated: at scale 100 each
 * worker walks the 100 days one page each; at larger scales each worker pages through a day of its own.
 */
async function pageRate(
  pool: Pool,
  apiKey: string,
  pagesPerDay: number,
  seconds: number,
): Promise<{ pages: number; records: number; seconds: number }> {
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  let pages = 0;
  let records = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, worker) => {
      for (let step = 0; performance.now() < deadline; step++) {
        const back = pagesPerDay === 1 ? (worker * 13 + step) % 100 : worker * 7;
        const page = pagesPerDay === 1 ? 1 : (step % pagesPerDay) + 1;
        const reply = await getInfo(
          pool,
          apiKey,
          `/customer/v1/brands/1/conversations?start_date=${dayBack(back)}&end_date=${dayBack(back)}&page=${page}&page_size=100`,
        );
        if (reply.status !== 200) throw new Error(`status ${reply.status}`);
        pages++;
        records += Math.max(0, Math.min(100, reply.info.total_rows - (page - 1) * 100));
      }
    }),
  );
  return { pages, records, seconds: (performance.now() - started) / 1000 };
}

function dayBack(days: number): string {
  return new Date(Date.parse(`${TODAY}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

/** A sync's slice: every page of one day nobody read yet, one request at a time. */
async function coldDay(pool: Pool, apiKey: string, back: number): Promise<{ pages: number; seconds: number }> {
  const started = performance.now();
  let pages = 0;
  for (let page = 1; ; page++) {
    const reply = await getInfo(
      pool,
      apiKey,
      `/customer/v1/brands/1/conversations?start_date=${dayBack(back)}&end_date=${dayBack(back)}&page=${page}&page_size=100`,
    );
    pages++;
    if (page * 100 >= reply.info.total_rows) break;
  }
  return { pages, seconds: (performance.now() - started) / 1000 };
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const scale of [100, 10_000]) {
    const { child, url, apiKey } = await startCli(scale);
    const pool = new Pool(url, { connections: CONNECTIONS });
    try {
      let started = performance.now();
      const first = await get(
        pool,
        apiKey,
        `/customer/v1/brands/1/conversations?start_date=${FIRST_DAY}&end_date=${TODAY}&page=1&page_size=100`,
      );
      const firstMs = performance.now() - started;
      results.push({
        scenario: 'simulator',
        metric: `first page of 100 days, cold (scale ${scale})`,
        value: firstMs,
        unit: 'ms',
        note: `total_rows ${first.body.info.total_rows.toLocaleString('en-US')}`,
      });

      started = performance.now();
      await get(
        pool,
        apiKey,
        `/customer/v1/brands/1/conversations?start_date=2026-10-01&end_date=2026-10-01&page=1&page_size=100`,
      );
      results.push({
        scenario: 'simulator',
        metric: `first page of a cold day (scale ${scale})`,
        value: performance.now() - started,
        unit: 'ms',
        note: 'generates the day',
      });

      // Warm the days the workers will read, then measure serving pages alone.
      const pagesPerDay = Math.max(1, Math.floor(scale / 100));
      await pageRate(pool, apiKey, pagesPerDay, 1);
      const rate = await pageRate(pool, apiKey, pagesPerDay, SECONDS);
      results.push({
        scenario: 'simulator',
        metric: `conversation pages (scale ${scale})`,
        value: rate.pages / rate.seconds,
        unit: 'pages/s',
        note: `${CONNECTIONS} connections, 100 records/page, days generated`,
      });
      results.push({
        scenario: 'simulator',
        metric: `conversation records (scale ${scale})`,
        value: rate.records / rate.seconds,
        unit: 'records/s',
      });
      const cold = await coldDay(pool, apiKey, 60);
      results.push({
        scenario: 'simulator',
        metric: `a cold day, every page (scale ${scale})`,
        value: cold.pages / cold.seconds,
        unit: 'pages/s',
        note: `${cold.pages} pages, one connection, includes generating the day`,
      });

      started = performance.now();
      let reports = 0;
      while (performance.now() - started < 1000) {
        const day = new Date(Date.parse(`${TODAY}T00:00:00Z`) - (reports % 10) * 86_400_000).toISOString().slice(0, 10);
        const reply = await get(
          pool,
          apiKey,
          `/customer/v1/brands/1/reports/visibility/topics?start_date=${day}&end_date=${day}&include_scenarios=true`,
        );
        if (reply.status !== 200) throw new Error(`status ${reply.status}`);
        reports++;
      }
      results.push({
        scenario: 'simulator',
        metric: `visibility report of a day (scale ${scale})`,
        value: reports / ((performance.now() - started) / 1000),
        unit: 'reports/s',
        note: 'one connection',
      });
    } finally {
      await pool.close();
      await stop(child);
    }
  }
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await run());
}
