/**
 * Warehouse load throughput: one slice of 1,000,000 conversation rows loaded through `Warehouse.loadSlice`
 * (stage with the appender, dedupe by key, MERGE in one transaction with state and counters) into an empty
 * file, then the same slice again over the existing rows; against the raw rate of DuckDBDataChunkWriter +
 * appender into an unkeyed table with the same columns and the same value conversion, measured in the same
 * run on the same rows (after a small warm-up of both paths, so neither pays the JIT alone).
 * Run alone: `node bin/run-ts.js bench/load.ts [rows]`, or through `npm run bench -- load`.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBDataChunkWriter, DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import type { BenchResult } from './run.js';
import type { Row } from '../src/warehouse/load/slice-batch.js';
import { openWarehouse } from '../src/warehouse/warehouse.js';
import { converterFor } from '../src/warehouse/load/cell-converters.js';
import { conversationRows, sliceBatch } from '../test/warehouse/batches.js';
import { tempDir } from '../test/support/tmp.js';

const DEFAULT_ROWS = 1_000_000;
const DAY = '2026-11-20';

export async function run(rowCount = DEFAULT_ROWS): Promise<BenchResult[]> {
  const tmp = tempDir('bench-load');
  try {
    const warmUp = conversationRows(DAY, 20_000);
    await rawAppenderRate(join(tmp.path, 'warm-raw.duckdb'), warmUp);
    const warm = await openWarehouse(join(tmp.path, 'warm.duckdb'));
    await warm.loadSlice(sliceBatch({ writes: [{ table: 'conversations', mode: 'merge', rows: warmUp }] }));
    await warm.close();

    const rows = conversationRows(DAY, rowCount);
    const raw = await rawAppenderRate(join(tmp.path, 'raw.duckdb'), rows);

    const wh = await openWarehouse(join(tmp.path, 'bv.work.duckdb'));
    const batch = sliceBatch({
      stream: 'conversations',
      sliceKey: DAY,
      day: DAY,
      writes: [{ table: 'conversations', mode: 'merge', rows }],
    });
    let started = performance.now();
    await wh.loadSlice(batch);
    const intoEmpty = rowCount / ((performance.now() - started) / 1000);
    started = performance.now();
    await wh.loadSlice(batch);
    const overExisting = rowCount / ((performance.now() - started) / 1000);
    const [check] = await wh.query('SELECT count(*) AS n FROM conversations');
    if (check?.n !== rowCount) throw new Error(`expected ${rowCount} rows after the loads, found ${String(check?.n)}`);
    started = performance.now();
    await wh.publish(join(tmp.path, 'bv.duckdb'));
    const publishSeconds = (performance.now() - started) / 1000;
    await wh.close();

    const note = `${rowCount.toLocaleString('en-US')} rows x 15 columns`;
    return [
      { scenario: 'load', metric: 'raw DataChunkWriter + appender, unkeyed table', value: raw, unit: 'rows/s', note },
      {
        scenario: 'load',
        metric: 'loadSlice into an empty file (merge)',
        value: intoEmpty,
        unit: 'rows/s',
        note: `${(intoEmpty / raw).toFixed(2)} x raw`,
      },
      {
        scenario: 'load',
        metric: 'loadSlice again over the same keys',
        value: overExisting,
        unit: 'rows/s',
        note: `${(overExisting / raw).toFixed(2)} x raw`,
      },
      {
        scenario: 'load',
        metric: 'publish the copy (COPY FROM DATABASE + views + rename)',
        value: publishSeconds,
        unit: 's',
        note,
      },
    ];
  } finally {
    tmp.remove();
  }
}

/**
 * The floor: the same rows, converted by the same column converters, through DataChunkWriter into an
 * appender on a table with no key, no staging, no dedupe and no transaction of ours.
 */
async function rawAppenderRate(path: string, rows: Row[]): Promise<number> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    await connection.run(`CREATE TABLE raw_conversations (
      brand_id BIGINT, id BIGINT, "day" DATE, "date" TIMESTAMPTZ, model VARCHAR, has_shopping BOOLEAN, mentioned BOOLEAN,
      recommended BOOLEAN, "position" INTEGER, recommendation_position INTEGER, fact_check_passed BOOLEAN, topic_id BIGINT,
      _extra JSON, _synced_at TIMESTAMPTZ, _run_id VARCHAR)`);
    const columns = await connection.runAndReadAll(
      `SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'raw_conversations' ORDER BY column_index`,
    );
    const names = columns.getRowsJS().map(([name]) => String(name));
    const converters = columns.getRowsJS().map(([, type]) => converterFor(String(type)));
    const fixed: Record<string, unknown> = { brand_id: 7, _synced_at: new Date(), _run_id: 'run-1' };
    const started = performance.now();
    const appender = await connection.createAppender('raw_conversations');
    const writer = DuckDBDataChunkWriter.forAppender(appender);
    const values: (DuckDBValue | null)[] = new Array<DuckDBValue | null>(names.length);
    for (const row of rows) {
      for (let c = 0; c < names.length; c++) {
        const value = row[names[c]!] ?? fixed[names[c]!];
        values[c] = value === undefined || value === null ? null : converters[c]!(value);
      }
      writer.appendRow(values);
    }
    writer.flush();
    appender.closeSync();
    return rows.length / ((performance.now() - started) / 1000);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const results = await run(Number(process.argv[2] ?? DEFAULT_ROWS));
  for (const r of results) {
    const value = r.unit === 'rows/s' ? Math.round(r.value).toLocaleString('en-US') : r.value.toFixed(2);
    process.stdout.write(`${r.metric.padEnd(58)} ${value.padStart(12)} ${r.unit.padEnd(6)} ${r.note ?? ''}\n`);
  }
}
