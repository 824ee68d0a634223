import type { Page, PagingSummary } from '../../../api/paginate.js';
import type { Rejection } from '../../../api/validate.js';

/** The first page of a paged answer, the generator closed after it (one request). */
export interface FirstPage<T = unknown> {
  records: T[];
  /** Records of the page that failed validation: doctor tells of them (validation-tally.ts). */
  rejects: Rejection[];
  total: number | undefined;
  info: Record<string, unknown>;
}

export async function firstPage<T>(pages: AsyncGenerator<Page<T, object>, PagingSummary>): Promise<FirstPage<T>> {
  try {
    const next = await pages.next();
    if (next.done) return { records: [], rejects: [], total: 0, info: {} };
    const { records, rejects, totalRows, info } = next.value;
    return { records, rejects, total: totalRows, info: info as Record<string, unknown> };
  } finally {
    await pages.return(undefined as never).catch(() => {});
  }
}

export function isEmpty(page: FirstPage): boolean {
  return page.records.length === 0 && !page.total;
}
