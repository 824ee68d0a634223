import type { ParamName } from '../../../api/param-names.js';
import { change, fingerprint, type ProbeContext } from '../probe-context.js';
import { isEmpty, type FirstPage } from './first-page.js';

export interface CompareOptions {
  /** The value sent, for the table's why. */
  shown: string;
  /** Other parameters this request sends, so a 400 naming one is read right. */
  alsoSent?: readonly ParamName[];
  /** When the answers are the same: what the data says, and the request with an invalid value that decides. */
  tiebreak: { invalid: string; call: () => Promise<unknown> };
  /** A record that breaks the filter (evidence that it was not applied), when records show it. */
  breaks?: (record: unknown) => string | undefined;
}

/**
 * A filter by behaviour, one request: its answer against the base answer of the same window. Records that break
 * the filter make it wrong; a different answer makes it verified; the same answer goes to the tiebreak.
 */
export async function compareToBase(
  ctx: ProbeContext,
  endpoint: string,
  param: ParamName,
  base: FirstPage | undefined,
  fetch: () => Promise<FirstPage>,
  options: CompareOptions,
): Promise<FirstPage | undefined> {
  const { book } = ctx;
  if (!base) return void book.unchecked(endpoint, param, 'the base answer of the window could not be read');
  const asked = await ctx.ask(endpoint, [param, ...(options.alsoSent ?? [])], fetch);
  if (!asked.ok) return void ctx.failed(endpoint, [param], asked.why);
  const page = asked.value;
  const broken = options.breaks ? page.records.map(options.breaks).find(Boolean) : undefined;
  if (broken) book.wrong(endpoint, param, `sent ${book.wire(param)}=${options.shown}, yet ${broken}`);
  else if (fingerprint(page.records, page.total) !== fingerprint(base.records, base.total)) {
    book.verified(endpoint, param, `${book.wire(param)}=${options.shown} changed the answer (${change(base, page)})`);
  } else {
    const dataSays = isEmpty(base) ? 'both answers are empty' : `${book.wire(param)}=${options.shown} did not change the answer`;
    await ctx.tiebreak(endpoint, param, options.tiebreak.invalid, options.tiebreak.call, dataSays);
  }
  return page;
}
