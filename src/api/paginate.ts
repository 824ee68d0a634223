import type { z } from 'zod';
import { PagingError } from './errors.js';
import { validateRecords, type Rejection } from './validate.js';

/** page_size is 1 to 100 (spec, "Limits"). */
export const MAX_PAGE_SIZE = 100;
/** page_size of product ranking is 1 to 50 (spec, "Limits"; endpoint 19). */
export const PRODUCT_RANKING_MAX_PAGE_SIZE = 50;

/** The paging part of a paged answer's `info` ("Paged answers carry info.page, info.page_size and info.total_rows"). */
export interface PagingInfo {
  page?: number | null | undefined;
  page_size?: number | null | undefined;
  total_rows?: number | null | undefined;
}

export interface FetchedPage<I extends PagingInfo> {
  data: unknown[];
  info: I;
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
  fetchPage: (page: number, pageSize: number) => Promise<FetchedPage<I>>;
  /** The record schema; each record is validated on its own. */
  schema: z.ZodType<T>;
  /** Records per page requested (already capped to the endpoint's limit). */
  pageSize: number;
  /** Names a page for rejections and errors, e.g. `GET /customer/v1/brands/7/conversations page 3`. */
  describe: (page: number) => string;
}

/**
 * Pages through an offset-paged endpoint, one page in memory at a time. It stops on an empty page, on a short
 * page, or when the pages read cover the latest `total_rows` (which may shrink or grow while paging: each page's
 * count is the one used). Every page reports its `total_rows`, so a caller can check it got every record.
 */
export async function* paginate<T, I extends PagingInfo>(options: PaginateOptions<T, I>): AsyncGenerator<Page<T, I>, PagingSummary> {
  const summary: PagingSummary = { pages: 0, records: 0, rejects: 0, firstTotalRows: undefined, lastTotalRows: undefined };
  let page = 1;
  for (;;) {
    const source = options.describe(page);
    const { data, info } = await options.fetchPage(page, options.pageSize);
    // An API that ignores the page parameter (a wrong `api.params.page`) would serve page 1 forever.
    if (typeof info.page === 'number' && info.page !== page) {
      throw new PagingError(`${source}: asked for page ${page}, the API answered page ${info.page}; check api.params.page`, {
        endpoint: source,
      });
    }
    const totalRows = typeof info.total_rows === 'number' ? info.total_rows : undefined;
    if (summary.pages === 0) summary.firstTotalRows = totalRows;
    summary.lastTotalRows = totalRows;
    // The first page is always yielded, even empty, so callers learn `total_rows`; later empty pages end it.
    if (data.length === 0 && summary.pages > 0) break;

    const effectivePageSize = typeof info.page_size === 'number' && info.page_size > 0 ? info.page_size : options.pageSize;
    const { records, rejects } = validateRecords(options.schema, data, source);
    summary.pages += 1;
    summary.records += records.length;
    summary.rejects += rejects.length;
    yield { records, rejects, page, pageSize: options.pageSize, totalRows, info, requestInfo: { page, pageSize: options.pageSize, source } };

    if (data.length === 0 || data.length < effectivePageSize) break;
    if (totalRows !== undefined && page * effectivePageSize >= totalRows) break;
    page += 1;
  }
  return summary;
}

/** The page size to request: the configured or asked size, within the endpoint's limit. */
export function cappedPageSize(requested: number | undefined, fallback: number, limit: number = MAX_PAGE_SIZE): number {
  const size = Math.floor(requested ?? fallback);
  return Math.min(Math.max(1, size), limit);
}
