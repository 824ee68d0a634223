import type { TrackedUrl } from '../../../streams/tracked-urls.js';
import { ENDPOINTS } from '../endpoints.js';
import { looseDayOf, OVERLONG_SHOWN, OVERLONG_TEXT, type ProbeContext } from '../probe-context.js';
import { compareEngines, compareToBase, compareTopics, invalidAs } from './compare.js';
import { probeDateRange } from './date-range.js';
import { firstPage, type FirstPage } from './first-page.js';
import { probePaging } from './paging.js';

const endpoint = ENDPOINTS.trackedUrls;

/** The record read puts first in each answer, the one without a url: info's counts, which cover every page of it. */
interface AnswerCounts {
  citations: unknown;
  cited_urls: unknown;
  url?: undefined;
  group?: undefined;
  first_cited?: undefined;
}

/** Endpoint 3: the range (three requests), seven filters (one each), paging (two). Teaches the probes a page and domains. */
export async function probeTrackedUrls(ctx: ProbeContext): Promise<void> {
  const { client, brand, windows, book, facts } = ctx;
  const read = (options: object, pageSize = 100): Promise<FirstPage<TrackedUrl | AnswerCounts>> =>
    firstPage(client.trackedUrls(brand, { ...windows.wide, pageSize, ...options })).then((page) => ({
      ...page,
      // info.citations counts every page of the answer: it moves with the range and filters even when the page shown does not.
      records: [{ citations: page.info.citations, cited_urls: page.info.cited_urls }, ...page.records],
    }));
  const base = await probeDateRange(ctx, endpoint, read, { dayOfRecord: (record) => looseDayOf(record.first_cited) });
  const pages = base?.records.filter((r) => r.url !== undefined) ?? [];
  facts.trackedUrl ??= pages[0]?.url;
  ctx.rememberDomains(
    pages.map((p) => p.url),
    true,
  );

  await compareEngines(ctx, endpoint, base, read);
  await compareTopics(ctx, endpoint, base, read);

  const group = pages.find((p) => p.group)?.group?.id;
  await compareToBase(ctx, endpoint, 'group_id', base, () => read({ groupId: group }), {
    shown: String(group),
    tiebreak: invalidAs(read, 'groupId', 'x'),
    breaks: (r) => (r.url && r.group?.id !== group ? `${r.url} is not in group ${group}` : undefined),
    unshown: group === undefined ? 'no tracked page is in a group' : undefined,
  });
  await compareToBase(ctx, endpoint, 'ungrouped', base, () => read({ ungrouped: true }), {
    shown: 'true',
    tiebreak: invalidAs(read, 'ungrouped', 'maybe'),
    breaks: (r) => (r.group ? `${r.url} is in group ${r.group.id}` : undefined),
  });

  const needle = pages.map((p) => p.title.slice(0, 60)).find((title) => pages.some((p) => !matches(p, title)));
  await compareToBase(ctx, endpoint, 'search', base, () => read({ search: needle }), {
    shown: JSON.stringify(needle),
    tiebreak: { invalid: OVERLONG_SHOWN, call: () => read({ search: OVERLONG_TEXT }, 1) },
    breaks: (r) => (r.url && !matches(r, needle!) ? `${r.url} does not hold it` : undefined),
    unshown: needle === undefined ? 'no search text tells the tracked pages apart' : undefined,
  });

  // sort and order: the order of the pages is what they change, so the base must hold two pages that differ.
  const sortable = pages.length >= 2 && new Set(pages.map((p) => p.citations)).size >= 2;
  const byCitations = await compareToBase(
    ctx,
    endpoint,
    'sort',
    base,
    () => read({ sort: 'citations', order: 'desc' }),
    {
      shown: 'citations',
      alsoSent: ['order'],
      tiebreak: invalidAs(read, 'sort', 'sideways'),
      unshown: sortable ? undefined : 'the tracked pages do not differ in citations',
    },
  );
  const sorted = byCitations?.records.filter((r) => r.url !== undefined) ?? [];
  if (byCitations && sorted.some((p, i) => i > 0 && p.citations > sorted[i - 1]!.citations)) {
    book.wrong(endpoint, 'sort', 'sort=citations did not order the pages by citations');
  }
  await compareToBase(ctx, endpoint, 'order', base, () => read({ order: 'asc' }), {
    shown: 'asc',
    tiebreak: invalidAs(read, 'order', 'sideways'),
    unshown: pages.length < 2 ? 'the brand tracks fewer than 2 pages' : undefined,
  });

  await probePaging(ctx, endpoint, ['start_date', 'end_date', 'engines'], (size) =>
    client.trackedUrls(brand, { ...windows.wide, pageSize: size }),
  );
}

function matches(page: TrackedUrl, text: string): boolean {
  const needle = text.toLowerCase();
  return page.url.toLowerCase().includes(needle) || page.title.toLowerCase().includes(needle);
}
