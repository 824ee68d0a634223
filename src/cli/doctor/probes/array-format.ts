import { ENDPOINTS } from '../endpoints.js';
import type { ProbeContext } from '../probe-context.js';
import { firstPage } from './first-page.js';

const endpoint = ENDPOINTS.conversations;

/**
 * How a list travels in a query string (`api.arrayFormat`) is not shown by the spec: endpoint 13 asked for two engines
 * must answer the sum of its answers for each alone. Three requests, once the conversations showed two engines.
 */
export async function probeArrayFormat(ctx: ProbeContext): Promise<void> {
  const { client, brand, windows, facts, config, book } = ctx;
  const format = config.api.arrayFormat;
  const other = format === 'repeat' ? 'comma' : 'repeat';
  const label = `api.arrayFormat "${format}"`;
  // An id the API drops (facts.unknownEngines) reads as no filter at all, which no way of sending lists would fix.
  const known = config.api.engines.filter((engine) => !facts.unknownEngines.includes(engine));
  const engines = (facts.engines.length >= 2 ? facts.engines : known).slice(0, 2);
  const unchecked = (why: string) => ctx.addAssumption(true, `${label}: not checked, ${why}`);
  if (engines.length < 2)
    return void unchecked(
      `fewer than two engines answered in ${windows.wide.startDate}..${windows.wide.endDate} (api.engines names fewer${facts.unknownEngines.length ? ' the API knows' : ''} too)`,
    );

  const count = (list: string[]) =>
    ctx.ask(
      endpoint,
      ['start_date', 'end_date', 'engines'],
      async () => (await firstPage(client.conversations(brand, { ...windows.wide, engines: list, pageSize: 1 }))).total,
    );
  const both = await count(engines);
  // A refusal over the name is the parameter table's to report; it says nothing of how lists travel.
  if (book.verdictOf(endpoint, 'engines') === 'wrong')
    return void unchecked(`the API does not take "${book.wire('engines', endpoint)}" on endpoint 13 (see the table)`);
  const sent = `${book.wire('engines', endpoint)}=${engines.join(',')} sent ${format === 'repeat' ? 'as a repeated parameter' : 'comma-separated'}`;
  if (!both.ok) return ctx.addAssumption(false, `${label}: ${sent}: ${both.why}; try api.arrayFormat "${other}"`);
  const [first, second] = [await count([engines[0]!]), await count([engines[1]!])];
  if (!first.ok || !second.ok)
    return void unchecked(
      `one engine alone could not be read: ${(!first.ok ? first : (second as { why: string })).why}`,
    );
  if ([both.value, first.value, second.value].some((total) => total === undefined))
    return void unchecked('the answers carry no info.total_rows');
  // At one record a page, an API whose total_rows counts its page says 1 whatever it read (the paging check names it).
  if (both.value === 1 && first.value === 1 && second.value === 1)
    return void unchecked(
      'total_rows is 1 for the list and for each engine alone, at one record a page: it may count the page, not the answers',
    );
  if (both.value === first.value! + second.value!) {
    return ctx.addAssumption(
      true,
      `${label}: ${sent} answers what each engine answers alone, added up (${first.value} + ${second.value})`,
    );
  }
  ctx.addAssumption(
    false,
    `${label}: ${sent} answers ${both.value} answers, but ${engines[0]} alone ${first.value} and ${engines[1]} alone ${second.value}: the API does not read the list as sent; try api.arrayFormat "${other}"`,
  );
}
