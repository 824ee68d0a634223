import type { FanoutCited } from '../../../streams/fanout-cited-record.js';
import { ENDPOINTS, SENT_PARAMS } from '../endpoints.js';
import { sameAnswer, NO_DOMAIN, OVERLONG_SHOWN, OVERLONG_TEXT, type ProbeContext } from '../probe-context.js';
import { compareEngines, compareTopics } from './compare.js';
import { probeDateRange } from './date-range.js';
import { firstPage, type FirstPage } from './first-page.js';
import { probePaging } from './paging.js';

/**
 * Endpoint 15 about a domain of the brand: the range (three), engines, topics, url (one each), paging (two).
 * The searches that led to one page differ from those that led to its whole domain.
 */
export async function probeFanoutsCited(ctx: ProbeContext): Promise<string[]> {
  const endpoint = ENDPOINTS.fanoutsCited;
  const { client, brand, windows, book, facts } = ctx;
  const domain = facts.domains[0];
  if (domain === undefined) {
    ctx.failed(endpoint, SENT_PARAMS[endpoint]!, NO_DOMAIN);
    return [];
  }
  const read = (options: object, pageSize = 100): Promise<FirstPage> =>
    firstPage(client.fanoutsCited(brand, { ...windows.wide, domain, pageSize, ...options }));
  const base = await probeDateRange(ctx, endpoint, read, { alsoSent: ['domain'] });
  await compareEngines(ctx, endpoint, base, read, { alsoSent: ['domain'] });
  await compareTopics(ctx, endpoint, base, read, { alsoSent: ['domain'] });

  // url instead of domain: the API takes one of them, so an answer to either shows the name it was sent under works.
  const url = facts.trackedUrl;
  const other = facts.domains[1];
  // Two domains must give different searches: an answer for one alone may be a default list the API gives whatever
  // domain is sent (it was called verified), and the stream would file the same searches under every domain.
  let compared = false;
  if (base && other !== undefined) {
    const second = await ctx.ask(endpoint, ['domain'], () => read({ domain: other }));
    compared = second.ok;
    if (second.ok && !sameAnswer(second.value, base))
      book.verified(endpoint, 'domain', `${domain} and ${other} give different searches`);
  }
  if (book.verdictOf(endpoint, 'domain') === undefined) {
    // The spec takes one of url and domain: both at once is a request a validating API refuses, naming them.
    const dataSays =
      base && (base.records.length > 0 || (base.total ?? 0) > 0)
        ? compared
          ? `${domain} and ${other} give the same searches`
          : `${base.total ?? base.records.length} searches led to ${domain}, and no second domain's answer to compare with`
        : `no search led to ${domain} in the window`;
    await ctx.tiebreak(
      endpoint,
      'domain',
      `${domain} with url too`,
      () => read({ url: url ?? `https://${domain}/` }, 1),
      dataSays,
    );
  }
  if (url === undefined) book.unchecked(endpoint, 'url', 'the brand tracks no page; checkable once it tracks one');
  else {
    const byUrl = await ctx.ask(endpoint, ['url'], () =>
      firstPage(client.fanoutsCited(brand, { ...windows.wide, url, pageSize: 100 })),
    );
    if (!byUrl.ok) ctx.failed(endpoint, ['url'], byUrl.why);
    else if (base && !sameAnswer(byUrl.value, base))
      book.verified(endpoint, 'url', `the searches that led to ${url} differ from those of ${domain}`);
    else if (!base && book.verdictOf(endpoint, 'domain') === 'wrong') {
      // The API refused the domain request for want of url or domain, and took this one: it reads url.
      book.verified(
        endpoint,
        'url',
        `the API answered a request with ${book.wire('url', endpoint)} alone, after refusing one without url or domain`,
      );
    } else
      await ctx.tiebreak(
        endpoint,
        'url',
        `${url} with domain too`,
        () => read({ url }, 1),
        `the searches of ${url} are those of ${domain}`,
      );
  }
  await probePaging(ctx, endpoint, ['start_date', 'end_date', 'engines', 'domain'], (size) =>
    client.fanoutsCited(brand, { ...windows.wide, domain, pageSize: size }),
  );
  return ((base?.records ?? []) as FanoutCited[]).map((r) => r.query);
}

/**
 * Endpoint 14 for the first of sync.phrases, else the word most searches seen in endpoint 15 hold: each search returned
 * must hold the phrase. Paging (two requests) carries the check.
 */
export async function probeFanoutsByPhrase(ctx: ProbeContext, searches: readonly string[]): Promise<void> {
  const endpoint = ENDPOINTS.fanoutsByPhrase;
  const { client, brand, book } = ctx;
  const phrase = ctx.config.sync.phrases[0] ?? commonWord(searches);
  if (phrase === undefined)
    return ctx.failed(endpoint, ['phrase', 'page', 'page_size'], 'no phrase is known; add one to sync.phrases');
  const page = await ctx.askOrFail(endpoint, ['phrase'], () =>
    firstPage(client.fanoutsByPhrase(brand, { phrase, pageSize: 100 })),
  );
  if (page) {
    const queries = page.records.map((r) => r.query);
    const without = queries.filter((q) => !q.toLowerCase().includes(phrase.toLowerCase()));
    if (queries.length === 0) {
      await ctx.tiebreak(
        endpoint,
        'phrase',
        OVERLONG_SHOWN,
        () => firstPage(client.fanoutsByPhrase(brand, { phrase: OVERLONG_TEXT, pageSize: 1 })),
        `no search holds "${phrase}"`,
      );
    } else if (without.length === queries.length)
      book.wrong(endpoint, 'phrase', `none of the ${queries.length} searches returned holds "${phrase}"`);
    else if (without.length > 0) {
      // The spec answers "the searches that hold the phrase": one that does not is filed under a phrase it lacks.
      book.wrong(
        endpoint,
        'phrase',
        `${without.length} of the ${queries.length} searches returned do not hold "${phrase}" (one: ${JSON.stringify(without[0]!.slice(0, 80))}): the API ignores the filter or matches otherwise than the spec says, and bvsync would file them under the phrase`,
      );
    } else book.verified(endpoint, 'phrase', `the ${queries.length} searches returned hold "${phrase}"`);
  }
  await probePaging(ctx, endpoint, ['phrase'], (size) => client.fanoutsByPhrase(brand, { phrase, pageSize: size }));
}

/** A word of 4 letters or more that most of the searches hold (so its searches span pages), or undefined. */
function commonWord(searches: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const search of searches) {
    for (const word of new Set(search.toLowerCase().match(/\p{L}{4,}/gu) ?? []))
      counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
}
