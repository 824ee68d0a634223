/**
 * Scenario 1, throughput at zero latency: a backfill of ~1,000,000 conversations (one brand, 100 days of 10,000
 * answers) into an empty file, against two references measured in the same run:
 * - the simulator's raw serve rate: every page of the same 100 days fetched by a tight loop (8 connections, the
 *   client's default pool, each taking the next day and paging through it) that parses the JSON and does nothing
 *   else, from a fresh simulator process, so days are generated cold as they are for bvsync;
 * - DuckDB's raw ingest rate of the same rows: the conversations (and their brand rows) of 100,000 of those records,
 *   mapped to rows by the stream beforehand, appended with DataChunkWriter into unkeyed copies of the two tables.
 * Target: bvsync's records/s >= 0.5 x the smaller reference. The backfill's peak RSS feeds scenario 4 (memory).
 * A third figure bounds what any fetch side can reach: bvsync's writer alone, the same rows made beforehand and loaded
 * a day a slice through the warehouse's own loader (stage, insert by key, commit), with nothing fetched or decoded.
 * The same backfill runs once more with the other `sync.fetchThreads` (0 when the default has threads, else 1), so one
 * run shows what reading slices off the writer's thread changes on this machine at this load.
 */
import { parseConfig } from '../src/configuration.js';
import { join } from 'node:path';
import { Pool } from 'undici';
import { DuckDBDataChunkWriter, DuckDBInstance, timestampTZValue, type DuckDBValue } from '@duckdb/node-api';
import { conversations } from '../src/streams/conversations.js';
import type { Row } from '../src/warehouse/load/slice-batch.js';
import { readCatalog } from '../src/warehouse/catalog.js';
import { planTable } from '../src/warehouse/load/table-plan.js';
import { openWarehouse } from '../src/warehouse/warehouse.js';
import { duckdbSettings } from '../src/warehouse/file/duckdb-budget.js';

import { tempDir } from '../test/support/tmp.js';
import {
  conversationsSpec,
  daysBack,
  runInChild,
  startSimProcess,
  withSimulator,
  type ChildRunReport,
} from './harness.js';
import type { BenchResult } from './run.js';

const DAYS = 100;
const PER_DAY = 10_000;
const CONNECTIONS = 8;
const PAGE_SIZE = 100;
/** Records kept from the serve loop for the ingest reference. */
const INGEST_SAMPLE = 100_000;
/** Bounds of the serve loop: it stops at whichever comes first. */
const SERVE_MAX_PAGES = 20_000;
const SERVE_MAX_MS = 300_000;

export interface BackfillFigure {
  records: number;
  seconds: number;
  peakRssMb: number;
  report: ChildRunReport;
}

const backfills = new Map<string, Promise<BackfillFigure>>();

/**
 * A backfill of conversations, `days` days of PER_DAY answers, into an empty file, in a child process (with
 * `nodeOptions` as its NODE_OPTIONS) against a fresh simulator process. Memoised: scenarios 1 and 4 share the
 * 1,000,000-row run when both run in one bench.
 */
export function conversationBackfill(
  days: number,
  nodeOptions?: string,
  fetchThreads?: number,
): Promise<BackfillFigure> {
  const key = `${days}|${nodeOptions ?? ''}|${fetchThreads ?? ''}`;
  let figure = backfills.get(key);
  if (!figure) backfills.set(key, (figure = measureBackfill(days, nodeOptions, fetchThreads)));
  return figure;
}

async function measureBackfill(
  days: number,
  nodeOptions: string | undefined,
  fetchThreads: number | undefined,
): Promise<BackfillFigure> {
  return withSimulator('bench-backfill', { scale: PER_DAY, days: DAYS }, async (context) => {
    const report = await runInChild(conversationsSpec(context, days, { nodeOptions, fetchThreads }));
    if (report.status !== 'complete') throw new Error(`the backfill ended ${report.status}`);
    return { records: report.records, seconds: report.seconds, peakRssMb: report.peakRssMb, report };
  });
}

/** The tight loop: records/s, and the first INGEST_SAMPLE records for the ingest reference. */
async function serveRate(): Promise<{ recordsPerSecond: number; records: number; sample: unknown[] }> {
  const sim = await startSimProcess({ scale: PER_DAY, days: DAYS });
  const pool = new Pool(sim.url, { connections: CONNECTIONS });
  const sample: unknown[] = [];
  let records = 0;
  let pages = 0;
  let nextDay = 0;
  const started = performance.now();
  const deadline = started + SERVE_MAX_MS;
  try {
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        for (let day = nextDay++; day < DAYS; day = nextDay++) {
          const date = daysBack(DAYS - 1 - day);
          for (let page = 1; pages < SERVE_MAX_PAGES && performance.now() < deadline; page++) {
            const response = await pool.request({
              method: 'GET',
              path: `/customer/v1/brands/1/conversations?start_date=${date}&end_date=${date}&page=${page}&page_size=${PAGE_SIZE}`,
              headers: { 'x-api-key': sim.apiKey },
            });
            const body = (await response.body.json()) as { data: unknown[]; info: { total_rows: number } };
            if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
            pages++;
            records += body.data.length;
            if (sample.length < INGEST_SAMPLE) sample.push(...body.data);
            if (page * PAGE_SIZE >= body.info.total_rows) break;
          }
        }
      }),
    );
    return { recordsPerSecond: records / ((performance.now() - started) / 1000), records, sample };
  } finally {
    await pool.close();
    await sim.stop();
  }
}

/** DuckDB's raw ingest of the sample's rows (both tables), as records/s. */
async function ingestRate(records: unknown[]): Promise<{ recordsPerSecond: number; rows: number }> {
  const tmp = tempDir('bench-ingest');
  try {
    // The warehouse's migrations make the tables; the raw copies have their columns and no key.
    const path = join(tmp.path, 'raw.duckdb');
    await (await openWarehouse(path)).close();
    const instance = await DuckDBInstance.create(path);
    const connection = await instance.connect();
    try {
      const catalog = await readCatalog(connection);
      const tables: Record<string, Row[]> = { conversations: [], conversation_brands: [] };
      const context = {
        brandId: 1,
        slice: { key: 'x', day: null, from: null, to: null, params: {} },
      } as unknown as Parameters<typeof conversations.rows>[1];
      for (const record of records) {
        for (const [table, rows] of Object.entries(conversations.rows(record as never, context)))
          tables[table]!.push(...rows);
      }
      const fixed: Record<string, DuckDBValue> = {
        brand_id: 1n,
        _synced_at: timestampTZValue(BigInt(Date.now()) * 1000n),
        _run_id: 'raw',
      };
      const plans = Object.keys(tables).map((table) => planTable(catalog.get(table)!));
      for (const plan of plans)
        await connection.run(`CREATE TABLE raw_${plan.info.name} AS SELECT * FROM ${plan.info.name} LIMIT 0`);
      const started = performance.now();
      for (const plan of plans) {
        const appender = await connection.createAppender(`raw_${plan.info.name}`);
        const writer = DuckDBDataChunkWriter.forAppender(appender);
        const values: (DuckDBValue | null)[] = new Array<DuckDBValue | null>(plan.columnNames.length);
        for (const row of tables[plan.info.name]!) {
          for (let c = 0; c < plan.columnNames.length; c++) {
            const name = plan.columnNames[c]!;
            const value = row[name];
            values[c] = value === undefined || value === null ? (fixed[name] ?? null) : plan.converters[c]!(value);
          }
          writer.appendRow(values);
        }
        writer.flush();
        appender.closeSync();
      }
      const seconds = (performance.now() - started) / 1000;
      return {
        recordsPerSecond: records.length / seconds,
        rows: tables.conversations!.length + tables.conversation_brands!.length,
      };
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  } finally {
    tmp.remove();
  }
}

/**
 * bvsync's writer alone, as records/s: the records' rows made beforehand and grouped by day, each day loaded as one
 * slice (both tables replaced by day) through `Warehouse.loadSlice` with the shipped DuckDB budget, in this process.
 * What a backfill's writer does per slice besides (decoding chunks from Redis, screening rows) is left out, so this is
 * the most the backfill can reach on this machine however cheap the fetch side becomes.
 */
async function writerRate(records: unknown[]): Promise<{ recordsPerSecond: number; slices: number }> {
  const tmp = tempDir('bench-writer');
  try {
    const warehouse = await openWarehouse(join(tmp.path, 'bv.work.duckdb'), { duckdb: duckdbSettings() });
    try {
      const runId = 'bench-writer';
      await warehouse.startRun({ runId, kind: 'backfill', brands: [1], streams: ['conversations'] });
      const context = {
        brandId: 1,
        slice: { key: 'x', day: null, from: null, to: null, params: {} },
      } as unknown as Parameters<typeof conversations.rows>[1];
      const days = new Map<string, { records: number; conversations: Row[]; brands: Row[] }>();
      for (const record of records) {
        const rows = conversations.rows(record as never, context);
        const day = String(rows.conversations![0]!.day);
        const slice = days.get(day) ?? { records: 0, conversations: [], brands: [] };
        days.set(day, slice);
        slice.records += 1;
        slice.conversations.push(...rows.conversations!);
        slice.brands.push(...(rows.conversation_brands ?? []));
      }
      const started = performance.now();
      for (const [day, slice] of days) {
        const scope = { brand_id: 1, day };
        await warehouse.loadSlice({
          runId,
          brandId: 1,
          stream: 'conversations',
          sliceKey: day,
          day,
          rejects: [],
          writes: [
            { table: 'conversations', mode: 'replace', scope, rows: slice.conversations },
            { table: 'conversation_brands', mode: 'replace', scope, rows: slice.brands },
          ],
          state: {
            status: 'complete',
            rows: slice.records,
            totalRows: slice.records,
            attempts: 1,
            requests: 0,
            lastError: null,
          },
        });
      }
      return { recordsPerSecond: records.length / ((performance.now() - started) / 1000), slices: days.size };
    } finally {
      await warehouse.close();
    }
  } finally {
    tmp.remove();
  }
}

export async function run(): Promise<BenchResult[]> {
  const serve = await serveRate();
  const ingest = await ingestRate(serve.sample);
  const writer = await writerRate(serve.sample);
  const sampled = serve.sample.length;
  serve.sample.length = 0;
  const backfill = await conversationBackfill(DAYS);
  const rate = backfill.records / backfill.seconds;
  const defaultThreads = parseConfig({}).sync.fetchThreads;
  const otherThreads = defaultThreads === 0 ? 1 : 0;
  const other = await conversationBackfill(DAYS, undefined, otherThreads);
  const otherRate = other.records / other.seconds;
  const reference = Math.min(serve.recordsPerSecond, ingest.recordsPerSecond);
  const smaller = serve.recordsPerSecond <= ingest.recordsPerSecond ? 'serve' : 'ingest';
  return [
    {
      scenario: 'throughput',
      metric: 'simulator raw serve rate (8 connections, parse only)',
      value: serve.recordsPerSecond,
      unit: 'records/s',
      note: `${serve.records.toLocaleString('en-US')} records`,
    },
    {
      scenario: 'throughput',
      metric: 'DuckDB raw ingest, same rows (DataChunkWriter, unkeyed)',
      value: ingest.recordsPerSecond,
      unit: 'records/s',
      note: `${sampled.toLocaleString('en-US')} records = ${ingest.rows.toLocaleString('en-US')} rows of 2 tables`,
    },
    {
      scenario: 'throughput',
      metric: `bvsync backfill, ${DAYS} days x ${PER_DAY.toLocaleString('en-US')}, empty file`,
      value: rate,
      unit: 'records/s',
      reference,
      target: `>= 0.5 x min reference (${smaller})`,
      met: rate >= 0.5 * reference,
      note: `sync.fetchThreads ${defaultThreads} (default); ${describeBackfill(backfill)}`,
    },
    {
      scenario: 'throughput',
      metric: "bvsync's writer alone, same rows made beforehand (stage, insert by key, commit)",
      value: writer.recordsPerSecond,
      unit: 'records/s',
      reference,
      note: `the most a backfill can reach here however cheap its fetching: ${sampled.toLocaleString('en-US')} records as ${writer.slices} day slices, one transaction each`,
    },
    {
      scenario: 'throughput',
      metric: `the same backfill, sync.fetchThreads ${otherThreads}`,
      value: otherRate,
      unit: 'records/s',
      reference: rate,
      note: `vs the default's run; ${describeBackfill(other)}`,
    },
  ];
}

function describeBackfill(figure: BackfillFigure): string {
  return `${figure.records.toLocaleString('en-US')} records in ${figure.seconds.toFixed(1)} s, ${figure.report.requests.toLocaleString('en-US')} requests, ${figure.report.cpuSeconds.toFixed(1)} s of CPU, peak RSS ${figure.peakRssMb.toFixed(0)} MB`;
}
