import type { Page, PagingSummary } from '../../../api/paginate.js';
import type { ParamName } from '../../../streams/registry.js';
import type { ProbeContext } from '../probe-context.js';

type Pages = AsyncGenerator<Page<unknown, object>, PagingSummary>;

/**
 * `page_size` and `page` by behaviour: a page asked for one record must hold one, and page 2 must hold another
 * record than page 1 (or, where the answer has `info.page`, say page 2). Two requests.
 */
export async function probePaging(
  ctx: ProbeContext,
  endpoint: string,
  sent: readonly ParamName[],
  open: (pageSize: number) => Pages,
  idOf: (record: unknown) => unknown = (record) => (record as { id: unknown }).id,
): Promise<void> {
  const { book } = ctx;
  let pages = open(1);
  try {
    // A refused first page is sent again without the refused names: from a new generator, the old one is done.
    let opened = false;
    const first = await ctx.ask(endpoint, sent, () => {
      if (opened) pages = open(1);
      opened = true;
      return pages.next();
    });
    if (!first.ok) return ctx.failed(endpoint, ['page', 'page_size'], first.why);
    if (first.value.done) return ctx.failed(endpoint, ['page', 'page_size'], 'the API sent no page');
    const page1 = first.value.value;
    const count = page1.records.length + page1.rejects.length;
    const total = page1.totalRows;
    if (count === 0) {
      return ctx.failed(
        endpoint,
        ['page', 'page_size'],
        'the answer is empty; checkable once the brand has records here',
      );
    }
    if (count > 1) {
      const sizeSaid = (page1.info as { page_size?: unknown }).page_size;
      book.wrong(
        endpoint,
        'page_size',
        `asked for 1 record per page, the API sent ${count}${sizeSaid === undefined ? '' : ` (info.page_size ${String(sizeSaid)})`}`,
      );
    }
    if (count === 1 && (total ?? 0) >= 2)
      book.verified(endpoint, 'page_size', `asked for 1 record per page: got 1 of ${total}`);
    const second = await ctx.ask(endpoint, sent, () => pages.next());
    const secondPage = ctx.config.api.firstPage + 1;
    if (!second.ok) {
      // A page 2 the API answers with what bvsync cannot read fails every slice of more than one page (the line below).
      if (ctx.noteUnreadable(endpoint, `page ${secondPage} (at 1 record a page)`, second)) {
        return ctx.failed(endpoint, ['page'], `page ${secondPage} came back unreadable: see its line below the table`);
      }
      // The client refuses a page 2 that says it is page 1 (a PagingError): the API ignored the page number.
      return /asked for page \d+, the API answered page/.test(second.why)
        ? book.wrong(endpoint, 'page', second.why.replace(/^the request failed: /, ''))
        : ctx.failed(endpoint, ['page'], second.why);
    }
    if (second.value.done) {
      if (count === 1)
        book.unchecked(endpoint, 'page_size', `the brand has only ${total ?? 1} record here; checkable with 2 or more`);
      const why =
        count > 1
          ? `every record fits on the one page the API sent (${count}), as page_size is not applied; checkable once it is`
          : `every record fits on page 1 (${total ?? count}); checkable with more records than a page holds`;
      return book.unchecked(endpoint, 'page', why);
    }
    const page2 = second.value.value;
    if (count === 1) book.verified(endpoint, 'page_size', `asked for 1 record per page: got 1, and page 2 holds more`);
    const answeredPage = (page2.info as { page?: unknown }).page;
    if (typeof answeredPage === 'number' && answeredPage !== secondPage) {
      return book.wrong(
        endpoint,
        'page',
        `asked for page ${secondPage}, the API answered page ${answeredPage}: it ignored the page number`,
      );
    }
    const seen = new Set(page1.records.map(idOf));
    const repeated = page2.records.filter((record) => seen.has(idOf(record)));
    if (page2.records.length > 0 && repeated.length === page2.records.length) {
      book.wrong(endpoint, 'page', `page 2 repeats the records of page 1: the API ignored the page number`);
    } else if (page2.records.length === 0) {
      book.unchecked(
        endpoint,
        'page',
        'page 2 is empty though total_rows promised more; look at the paging of this endpoint',
      );
    } else {
      book.verified(endpoint, 'page', `page 2 holds other records than page 1`);
      // A count of its own page's records is no count of the set: runs cannot tell a slice read whole from one cut short.
      if (count === 1 && total === 1) {
        ctx.addAssumption(
          false,
          `paging: ${endpoint}'s total_rows counts the records of its page, not the set (total_rows 1 on a page of 1, yet page 2 holds more): bvsync reads past a full first page, but cannot check that a slice of several pages is whole, so such slices end incomplete`,
        );
      }
    }
    if (count === 1 && page1.records.length === 1)
      await probeFirstPage(ctx, endpoint, sent, open, idOf, page1.records[0], total);
  } finally {
    await pages.return(undefined as never).catch(() => {});
  }
}

/**
 * The number of the first page (`api.firstPage`), not shown by the spec: the first page at two records a page must begin
 * with the record of the first page at one a page, else every slice would miss a page. One request.
 */
async function probeFirstPage(
  ctx: ProbeContext,
  endpoint: string,
  sent: readonly ParamName[],
  open: (pageSize: number) => Pages,
  idOf: (record: unknown) => unknown,
  first: unknown,
  total: number | undefined,
): Promise<void> {
  const pages = open(2);
  try {
    const asked = await ctx.ask(endpoint, sent, () => pages.next());
    if (!asked.ok || asked.value.done) return;
    const head = asked.value.value.records[0];
    if (head !== undefined && idOf(head) === idOf(first)) return;
    const setting = ctx.config.api.firstPage;
    const seen =
      head === undefined ? `is empty, though total_rows says ${total ?? 'more'}` : 'begins with another record';
    ctx.addAssumption(
      false,
      `paging: ${endpoint}'s page ${setting} holds a record at one record a page, but at two a page it ${seen}: the API does not number its first page ${setting} ` +
        `(or orders its records otherwise from one request to the next), so every slice would miss its first records; try api.firstPage ${setting === 1 ? 0 : 1}`,
    );
  } finally {
    await pages.return(undefined as never).catch(() => {});
  }
}
