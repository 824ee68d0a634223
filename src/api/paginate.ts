import type { z } from 'zod';
import { PagingError } from './errors.js';
import { validateRecords, type Rejection } from './validate.js';
import { valueFingerprint } from './value-fingerprint.js';

/** page_size is 1 to 100 (spec, "Limits"). */
export const MAX_PAGE_SIZE = 100;

/** The paging part of a paged answer's `info` ("Paged answers carry info.page, info.page_size and info.total_rows"). */
export interface PagingInfo {
  page?: number | null | undefined;
  page_size?: number | null | undefined;
  total_rows?: number | null | undefined;
}

/** One page as callers see it: valid records, rejected ones, and what the API said about the whole set. */
export interface Page<T, I extends PagingInfo = PagingInfo> {
  records: T[];
  rejects: Rejection[];
  /** The page number and size this page was read with. */
  page: number;
  pageSize: number;
  /** `info.total_rows` of this page (the latest count; it can change while paging), when the API gave it. */
  totalRows: number | undefined;
  /** The whole `info` of this answer (endpoint-specific counters included). */
  info: I;
  /** What was asked: the page and size sent, and the request's source label (`GET /path page N`). */
  requestInfo: { page: number; pageSize: number; source: string };
}

/** What the generator returns when it ends (for callers that drive it with `next()`). */
export interface PagingSummary {
  pages: number;
  records: number;
  rejects: number;
  /** `total_rows` of the first and of the last page: callers compare them with the distinct ids they got. */
  firstTotalRows: number | undefined;
  lastTotalRows: number | undefined;
}

export interface PaginateOptions<T, I extends PagingInfo> {
  /** Reads one page; the client sends `page` and `page_size` under their configured wire names. */
  fetchPage: (page: number, pageSize: number) => Promise<{ data: unknown[]; info: I }>;
  /** The record schema; each record is validated on its own. */
  schema: z.ZodType<T>;
  /** Records per page requested (already capped to the endpoint's limit). */
  pageSize: number;
  /** Names a page for rejections and errors, e.g. `GET /customer/v1/brands/7/conversations page 3`. */
  describe: (page: number) => string;
  /** The number the API gives its first page (`api.firstPage`): 1 unless it counts from 0. */
  firstPage?: number;
  /** Pages passed over before the first one read, counted from `firstPage`; default 0. */
  skipPages?: number | undefined;
}

/** Most pages one read may take whatever the API says: 1,000,000 records at the largest page size. */
export const MAX_PAGES = 10_000;

/**
 * How far past the first page's `total_rows` a read may go: records that arrive while paging may double the set and a
 * few pages more, never more. An absurd or random `total_rows` cannot make a read page on and on.
 */
export function pageLimit(firstTotalRows: number | undefined, pageSize: number): number {
  if (firstTotalRows === undefined) return MAX_PAGES;
  return Math.min(MAX_PAGES, 2 * Math.max(1, Math.ceil(firstTotalRows / pageSize)) + 10);
}

/**
 * Paging answered in a way that cannot be trusted, so it stopped: a page numbered other than asked, a repeated page, or
 * more pages than the first `total_rows` allows. `refused` holds the raw records of the page that was not yielded.
 */
export class PagingInconsistency extends PagingError {
  constructor(
    message: string,
    readonly problem: 'page_echo' | 'page_repeat' | 'page_limit',
    readonly page: number,
    readonly refused: unknown[],
    endpoint: string,
  ) {
    super(message, { endpoint });
  }
}

function countOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/**
 * Pages through an offset-paged endpoint, one page in memory, until an empty or short page or `total_rows` is covered;
 * a misnumbered or repeated page, or more than `pageLimit`, ends it with a `PagingInconsistency`.
 */
export async function* paginate<T, I extends PagingInfo>(
  options: PaginateOptions<T, I>,
): AsyncGenerator<Page<T, I>, PagingSummary> {
  const summary: PagingSummary = {
    pages: 0,
    records: 0,
    rejects: 0,
    firstTotalRows: undefined,
    lastTotalRows: undefined,
  };
  let limit = MAX_PAGES;
  let previous: unknown[] = [];
  // The page size the API keeps to when it serves fewer records than asked without saying so (see below).
  let servedSize: number | undefined;
  let page = (options.firstPage ?? 1) + (options.skipPages ?? 0);
  // Records the pages have held so far, rejects included: a count below it is not yet current.
  let served = 0;
  for (;;) {
    const source = options.describe(page);
    const { data, info } = await options.fetchPage(page, options.pageSize);
    // An API that ignores the page parameter (a wrong `api.params.page`) would serve page 1 forever.
    if (typeof info.page === 'number' && info.page !== page) {
      throw new PagingInconsistency(
        `${source}: asked for page ${page}, the API answered page ${info.page}; check api.params.page`,
        'page_echo',
        page,
        data,
        source,
      );
    }
    const totalRows = countOf(info.total_rows);
    // An echo above what was asked is not believed: a short-page test against it would end a read of full pages.
    const echoedSize = countOf(info.page_size);
    const effectivePageSize =
      servedSize ??
      (echoedSize !== undefined && echoedSize > 0 && echoedSize <= options.pageSize ? echoedSize : options.pageSize);
    if (summary.pages === 0) {
      summary.firstTotalRows = totalRows;
      limit = pageLimit(totalRows, effectivePageSize);
    }
    summary.lastTotalRows = totalRows;
    // The first page is always yielded, even empty, so callers learn `total_rows`; later empty pages end it.
    if (data.length === 0 && summary.pages > 0) break;
    // The same records again without a page echo: the API ignores the page parameter; past two distinct pages, it is an
    // API serving its last page again, so the list has ended.
    const repeated = repeatsPage(data, previous);
    if (repeated && totalRows === undefined && summary.pages >= 2) break;
    if (repeated) {
      throw new PagingInconsistency(
        `${source}: page ${page} repeats page ${page - 1} record for record; the API seems to ignore the page parameter (check api.params.page)`,
        'page_repeat',
        page,
        [],
        source,
      );
    }
    previous = data;
    served += data.length;

    const { records, rejects } = validateRecords(options.schema, data, source);
    summary.pages += 1;
    summary.records += records.length;
    summary.rejects += rejects.length;
    yield {
      records,
      rejects,
      page,
      pageSize: options.pageSize,
      totalRows,
      info,
      requestInfo: { page, pageSize: options.pageSize, source },
    };

    if (data.length === 0) break;
    if (data.length < effectivePageSize) {
      // A short first page while total_rows says more (or nothing) sets the page size; a page of another size ends the
      // read. A page size echoed below the one asked says what the API serves; an echo of the size asked says nothing.
      const echoSaysLast =
        totalRows === undefined &&
        echoedSize !== undefined &&
        echoedSize < options.pageSize &&
        echoedSize === effectivePageSize;
      if (summary.pages !== 1 || (totalRows !== undefined && data.length >= totalRows) || echoSaysLast) break;
      servedSize = data.length;
      limit = pageLimit(summary.firstTotalRows, servedSize);
    } else if (servedSize !== undefined && data.length > servedSize) {
      break;
    }
    // A total_rows the pages outgrew says nothing about the pages after, and a full first page counted as the whole set
    // may be a count of the page: both cost one more request rather than lost records.
    const countsOnlyThePage = summary.pages === 1 && data.length === effectivePageSize && totalRows === data.length;
    if (
      totalRows !== undefined &&
      summary.pages * (servedSize ?? effectivePageSize) >= totalRows &&
      served <= totalRows &&
      !countsOnlyThePage
    )
      break;
    if (summary.pages >= limit) {
      throw new PagingInconsistency(
        `${source}: still full pages after ${summary.pages} pages, the most that total_rows ${summary.firstTotalRows ?? '(not given)'} of the first page allows at ${effectivePageSize} a page; stopped`,
        'page_limit',
        page + 1,
        [],
        source,
      );
    }
    page += 1;
  }
  return summary;
}

/** Whether `data` is `previous` again, record for record; first and last records are compared first, as the cheap test. */
function repeatsPage(data: readonly unknown[], previous: readonly unknown[]): boolean {
  if (data.length === 0 || data.length !== previous.length) return false;
  const last = data.length - 1;
  if (
    valueFingerprint(data[0]) !== valueFingerprint(previous[0]) ||
    valueFingerprint(data[last]) !== valueFingerprint(previous[last])
  )
    return false;
  return JSON.stringify(data) === JSON.stringify(previous);
}

/** The page size to request: the configured or asked size, within the endpoint's limit. */
export function cappedPageSize(requested: number | undefined, fallback: number, limit: number = MAX_PAGE_SIZE): number {
  const size = Math.floor(requested ?? fallback);
  return Math.min(Math.max(1, size), limit);
}
