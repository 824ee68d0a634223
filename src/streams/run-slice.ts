import type { Rejection } from '../api/index.js';
import type { Row } from '../warehouse/slice-batch.js';
import type { ReadContext, RowsByTable, SourcePage, StreamDefinition } from './stream.js';

/** A bounded part of a slice's output, handed on as soon as it is full so memory stays flat. */
export interface SliceChunk {
  tables: RowsByTable;
  rejects: Rejection[];
}

export interface ChunkSink {
  write(chunk: SliceChunk): Promise<void>;
  /** Drops what was written so far: the slice is being read again from the start. */
  reset(): Promise<void>;
}

export interface RunSliceOptions {
  /** Rows (all tables together) per chunk; default 5,000. */
  chunkRows?: number;
  /** Extra reads of a slice whose distinct ids do not add up to `total_rows`; default 2. */
  completenessRetries?: number;
}

export interface SliceReadResult {
  status: 'complete' | 'incomplete';
  /** Distinct records (by id) of paged streams, else records read. */
  records: number;
  rows: number;
  rejects: number;
  totalRows: number | null;
  /** Reads of the slice (1 unless it was read again for completeness). */
  reads: number;
  /** Why the slice is incomplete, for `_sync_state.last_error`. */
  problem: string | null;
}

/**
 * Reads one slice through its stream declaration: pages, rows, chunks. A paged slice is complete only when the
 * distinct ids read equal the `total_rows` the API reported; offset paging over data that moves can skip or repeat
 * records, so such a slice is read again (bounded) and then reported incomplete rather than silently short.
 */
export async function runSlice(
  stream: StreamDefinition,
  context: ReadContext,
  sink: ChunkSink,
  options: RunSliceOptions = {},
): Promise<SliceReadResult> {
  const maxReads = 1 + (options.completenessRetries ?? 2);
  let result: SliceReadResult | undefined;
  for (let read = 1; read <= maxReads; read++) {
    if (read > 1) await sink.reset();
    result = await readOnce(stream, context, sink, options.chunkRows ?? 5_000, read);
    if (result.status === 'complete') return result;
  }
  return result!;
}

async function readOnce(stream: StreamDefinition, context: ReadContext, sink: ChunkSink, chunkRows: number, reads: number): Promise<SliceReadResult> {
  const rowContext = { brandId: context.brandId, slice: context.slice };
  const ids = new Set<string | number>();
  let buffer: SliceChunk = { tables: {}, rejects: [] };
  let buffered = 0;
  let rows = 0;
  let records = 0;
  let rejects = 0;
  let lastPage: SourcePage<unknown> | undefined;

  const add = (tables: RowsByTable) => {
    for (const [table, tableRows] of Object.entries(tables)) {
      if (tableRows.length === 0) continue;
      (buffer.tables[table] ??= []).push(...tableRows);
      buffered += tableRows.length;
      rows += tableRows.length;
    }
  };
  const flush = async () => {
    if (buffered === 0 && buffer.rejects.length === 0) return;
    await sink.write(buffer);
    buffer = { tables: {}, rejects: [] };
    buffered = 0;
  };

  for await (const page of stream.read(context)) {
    lastPage = page;
    for (const record of page.records) {
      records += 1;
      if (stream.recordId) ids.add(stream.recordId(record));
      add(stream.rows(record, rowContext));
    }
    buffer.rejects.push(...page.rejects);
    rejects += page.rejects.length;
    if (buffered >= chunkRows) await flush();
  }
  if (lastPage && stream.infoRows) add(stream.infoRows(lastPage, rowContext));
  await flush();

  const totalRows = lastPage?.totalRows ?? null;
  const counted = stream.recordId ? ids.size : records;
  // Rejected records are accounted for: they were read, they just could not be loaded.
  const accountedFor = counted + rejects;
  const complete = !stream.recordId || totalRows === null || accountedFor === totalRows;
  return {
    status: complete ? 'complete' : 'incomplete',
    records: counted,
    rows,
    rejects,
    totalRows,
    reads,
    problem: complete ? null : `read ${counted} distinct records and ${rejects} rejects, but the API reported total_rows ${totalRows}`,
  };
}

/** Wraps a single-shot report as the one page of its slice. */
export async function* onePage<R>(report: Promise<SourcePage<R>>): AsyncIterable<SourcePage<R>> {
  yield await report;
}

/** Rows of one record in one table (the common case). */
export function rowsOf(table: string, ...rows: Row[]): RowsByTable {
  return { [table]: rows };
}
