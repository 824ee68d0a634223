import { PagingInconsistency } from '../api/paginate.js';
import type { Rejection } from '../api/index.js';
import { compileScope, describeScopeMiss, type CompiledScope, type ScopeMiss } from '../warehouse/load/scope.js';
import { queryEchoOf, type QueryEcho } from '../warehouse/provenance.js';
import type { ReadContext, RowsByTable, SourcePage, StreamDefinition } from './stream.js';
import type { SliceStatus } from '../vocabulary.js';
import { valueFingerprint } from '../api/value-fingerprint.js';

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
  /**
   * `incomplete` when records could not be trusted (quarantined with the reason) or the distinct ids do not add up to
   * `total_rows`; `failed` when nothing of the read could be trusted (its first page was refused).
   */
  status: SliceStatus;
  /** Distinct records (by id) of paged streams loaded, else records loaded. */
  records: number;
  rows: number;
  /** Records quarantined: failed validation, outside the slice's scope, a duplicate id with other content, a refused page. */
  rejects: number;
  totalRows: number | null;
  /** Reads of the slice (1 unless it was read again for completeness). */
  reads: number;
  /** Why the slice is not complete, for `_sync_state.last_error`: what was asked and what came. */
  problem: string | null;
  /** The kind of the first problem, for `_sync_state.error_code`: `out_of_scope`, `duplicate_key`, `paging_mismatch`... */
  problemCode: string | null;
  /** The query the answer says was applied (`info.query` of its last page), when it echoes one. */
  query?: QueryEcho;
  /** The engines filter the read sent, when it sent one (`SourcePage.sentEngines`). */
  sentEngines?: string[];
  /** How the read went on the wire, in what the spec does not show (`SourcePage.readWith`). */
  readWith?: string;
}

/**
 * Reads one slice through its stream: pages, rows, chunks. A paged slice is complete when its distinct ids equal
 * `total_rows` (else read again, then incomplete). Bad data is quarantined with its reason, never failing the read.
 */
export async function runSlice(
  stream: StreamDefinition,
  context: ReadContext,
  sink: ChunkSink,
  options: RunSliceOptions = {},
): Promise<SliceReadResult> {
  const maxReads = 1 + (options.completenessRetries ?? 2);
  let result: ReadOutcome | undefined;
  for (let read = 1; read <= maxReads; read++) {
    if (read > 1) await sink.reset();
    result = await readOnce(stream, context, sink, options.chunkRows ?? 5_000, read);
    if (result.status === 'complete' || !result.rereadable) break;
  }
  const { rereadable: _, ...outcome } = result!;
  return outcome;
}

interface ReadOutcome extends SliceReadResult {
  /** Whether another read may come out otherwise (the data moved while it was paged). */
  rereadable: boolean;
}

/** The problems of one read, by kind: how many records each cost and its first description. */
class ReadProblems {
  private readonly kinds = new Map<string, { count: number; first: string; rereadable: boolean }>();

  add(code: string, description: string, rereadable: boolean, records = 1): void {
    const kind = this.kinds.get(code);
    if (kind) kind.count += records;
    else this.kinds.set(code, { count: records, first: description, rereadable });
  }

  get any(): boolean {
    return this.kinds.size > 0;
  }

  /** Only when every problem may be gone on another read: one that comes back the same leaves the slice incomplete anyway. */
  get rereadable(): boolean {
    return [...this.kinds.values()].every((kind) => kind.rereadable);
  }

  get firstCode(): string | null {
    return this.kinds.keys().next().value ?? null;
  }

  describe(): string | null {
    if (!this.any) return null;
    return [...this.kinds.values()]
      .map(({ count, first }) => (count > 1 ? `${first} (and ${count - 1} more like it)` : first))
      .join('; ');
  }
}

function sourceOf(page: SourcePage<unknown>, stream: StreamDefinition, context: ReadContext): string {
  const requestInfo = (page as { requestInfo?: { source?: unknown } }).requestInfo;
  if (typeof requestInfo?.source === 'string') return requestInfo.source;
  return page.rejects[0]?.source || `${stream.name} brand ${context.brandId} slice ${context.slice.key}`;
}

async function readOnce(
  stream: StreamDefinition,
  context: ReadContext,
  sink: ChunkSink,
  chunkRows: number,
  reads: number,
): Promise<ReadOutcome> {
  const rowContext = { brandId: context.brandId, slice: context.slice };
  const scopes = new Map<string, CompiledScope>();
  for (const target of stream.targets(rowContext)) {
    if (target.mode === 'replace') scopes.set(target.table, compileScope(target.scope, context.brandId));
  }
  // Every valid record's id (in scope or not) with its content's fingerprint: they count against total_rows.
  const seen = new Map<string | number, number>();
  const problems = new ReadProblems();
  let buffer: SliceChunk = { tables: {}, rejects: [] };
  let buffered = 0;
  let rows = 0;
  let records = 0;
  let invalid = 0;
  let quarantined = 0;
  let pages = 0;
  let lastPage: SourcePage<unknown> | undefined;
  let firstTotalRows: number | undefined;
  /** Whether a later page's total_rows differed from the first's: the list moved while it was paged. */
  let totalMoved = false;
  /** Whether every page's total_rows was the number of records on that page: a count of the page, not of the set. */
  let countsEachPage = true;
  /** The count of the last page that gave one: an API may give it on the first page only. */
  let lastTotalRows: unknown;
  /** Ids read on the page being read, to tell a record an earlier page brought (the pages shifted) from a repeat within one. */
  const onThisPage = new Set<string | number>();
  /** The first record an earlier page brought that came back on a later one, and on which page. */
  let repeatAcrossPages: { id: string | number; page: number } | undefined;

  // Called once per record: plain loops, no entries arrays or spread arguments to collect afterwards.
  const add = (tables: RowsByTable) => {
    for (const table in tables) {
      const tableRows = tables[table]!;
      if (tableRows.length === 0) continue;
      const target = (buffer.tables[table] ??= []);
      for (let index = 0; index < tableRows.length; index++) target.push(tableRows[index]!);
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
  const quarantine = (raw: unknown, issue: string, source: string) => {
    buffer.rejects.push({ raw, issues: [issue], source });
    quarantined += 1;
  };
  /** The first row of a record's rows that falls outside its table's replace scope. */
  const outOfScope = (tables: RowsByTable): { table: string; miss: ScopeMiss } | undefined => {
    for (const table in tables) {
      const scope = scopes.get(table);
      if (!scope) continue;
      const tableRows = tables[table]!;
      for (let index = 0; index < tableRows.length; index++) {
        const miss = scope.check(tableRows[index]!);
        if (miss) return { table, miss };
      }
    }
    return undefined;
  };

  try {
    for await (const page of stream.read(context)) {
      pages += 1;
      lastPage = page;
      const source = sourceOf(page, stream, context);
      if (pages === 1) firstTotalRows = page.totalRows ?? undefined;
      else if (typeof page.totalRows === 'number' && firstTotalRows !== undefined && page.totalRows !== firstTotalRows)
        totalMoved = true;
      if (page.totalRows !== page.records.length + page.rejects.length) countsEachPage = false;
      if (page.totalRows !== undefined && page.totalRows !== null) lastTotalRows = page.totalRows;
      onThisPage.clear();
      for (const record of page.records) {
        if (stream.recordId) {
          const id = stream.recordId(record);
          const print = valueFingerprint(record);
          const earlier = seen.get(id);
          if (earlier !== undefined && !onThisPage.has(id)) repeatAcrossPages ??= { id, page: pages };
          onThisPage.add(id);
          if (earlier !== undefined) {
            // The same record again (offset paging over moving data) loads once; another record under its id cannot load.
            if (earlier !== print) {
              const issue = `duplicate id ${JSON.stringify(id)} with content other than the record of that id read earlier in this slice; the first one read is kept`;
              quarantine(record, issue, source);
              problems.add('duplicate_key', issue, true);
            }
            continue;
          }
          seen.set(id, print);
        }
        let tables: RowsByTable;
        try {
          tables = stream.rows(record, rowContext);
        } catch (error) {
          // A value its schema let through that the stream cannot use (a timestamp of a day that does not exist).
          const issue = `the record could not be made into rows: ${(error as Error).message}`;
          quarantine(record, issue, source);
          problems.add('row_invalid', issue, false);
          continue;
        }
        const outside = outOfScope(tables);
        if (outside) {
          const issue = describeScopeMiss(outside.table, outside.miss);
          quarantine(record, issue, source);
          // A record dated outside the slice may be one of its own that the API files under another day (another time
          // zone): the slice may lack it, so it is incomplete. A domain or value not asked for is only extra.
          if (outside.miss.column === 'day') problems.add('out_of_scope', issue, false);
          continue;
        }
        records += 1;
        add(tables);
      }
      buffer.rejects.push(...page.rejects);
      invalid += page.rejects.length;
      if (buffered >= chunkRows) await flush();
    }
  } catch (error) {
    if (!(error instanceof PagingInconsistency)) throw error;
    // The pages before it were answered as asked and stay; the refused page's records are quarantined with the reason.
    for (const raw of error.refused) quarantine(raw, error.message, error.endpoint);
    problems.add('paging_mismatch', error.message, false, Math.max(1, error.refused.length));
  }
  if (lastPage && stream.infoRows) {
    try {
      add(stream.infoRows(lastPage, rowContext));
    } catch (error) {
      const issue = `the answer's info could not be made into rows: ${(error as Error).message}`;
      quarantine(lastPage.info, issue, sourceOf(lastPage, stream, context));
      problems.add('row_invalid', issue, false);
    }
  }
  await flush();

  // Only a count is a count: whatever else an API puts there is treated as not said.
  const reported = lastTotalRows;
  const totalRows = typeof reported === 'number' && Number.isSafeInteger(reported) && reported >= 0 ? reported : null;
  const distinct = stream.recordId ? seen.size : records + quarantined;
  // Rejected records are accounted for: they were read, they just could not be loaded.
  const accountedFor = distinct + invalid;
  // Under the other reading a rejected record may fall in a period a valid one counts already, or in one of its own.
  const otherCount =
    stream.otherTotalRows && totalRows !== null && accountedFor !== totalRows
      ? stream.otherTotalRows([...seen.keys()])
      : undefined;
  const otherReadingAddsUp =
    otherCount !== undefined && totalRows !== null && totalRows >= otherCount && totalRows <= otherCount + invalid;
  if (stream.recordId && pages >= 2 && countsEachPage) {
    // Read again, it would count the same way: the slice is as whole as the pages were, which nothing can confirm.
    problems.add(
      'incomplete',
      `read ${distinct} distinct records and ${invalid} rejects on ${pages} pages, but each page's total_rows counted only that page's records, so whether the slice is whole cannot be checked (bvsync doctor shows it)`,
      false,
    );
  } else if (stream.recordId && totalRows !== null && accountedFor !== totalRows && !otherReadingAddsUp) {
    const moved =
      firstTotalRows !== undefined && firstTotalRows !== totalRows
        ? ` (it moved from ${firstTotalRows} while the slice was read)`
        : '';
    problems.add(
      'incomplete',
      `read ${distinct} distinct records and ${invalid} rejects, but the API reported total_rows ${totalRows}${moved}`,
      true,
    );
  } else if (stream.recordId && totalMoved) {
    // The count adds up to the last page's, yet the list changed under the pages: a record deleted after its page was
    // read shifts the later pages back by one, and one live record falls between two pages, unread.
    problems.add(
      'incomplete',
      `read ${distinct} distinct records, as the last page's total_rows says, but total_rows moved from ${firstTotalRows} while the slice was paged, so a record may have fallen between two pages`,
      true,
    );
  } else if (stream.recordId && repeatAcrossPages) {
    // The count adds up, yet a record of one page came back on the next: records arrived at the head of the list while
    // it was paged, and as many went unread.
    problems.add(
      'incomplete',
      `record ${JSON.stringify(repeatAcrossPages.id)} of an earlier page came back on page ${repeatAcrossPages.page}: the list moved while it was paged, so a record may have been skipped`,
      true,
    );
  }
  const status = !problems.any ? 'complete' : pages === 0 && records === 0 ? 'failed' : 'incomplete';
  return {
    status,
    records,
    rows,
    rejects: invalid + quarantined,
    totalRows,
    reads,
    problem: problems.describe(),
    problemCode: problems.firstCode,
    rereadable: problems.rereadable,
    query: queryEchoOf(lastPage?.info),
    ...(lastPage?.sentEngines ? { sentEngines: [...lastPage.sentEngines] } : {}),
    ...(lastPage?.readWith !== undefined ? { readWith: lastPage.readWith } : {}),
  };
}
