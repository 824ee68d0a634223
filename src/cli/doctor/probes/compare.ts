import type { ParamName } from '../../../streams/registry.js';
import { change, sameAnswer, NO_ENGINE, NO_TOPIC, type ProbeContext } from '../probe-context.js';
import { isEmpty, type FirstPage } from './first-page.js';

export interface CompareOptions<T = unknown> {
  /** The value sent, for the table's why. */
  shown: string;
  /** Other parameters this request sends, so a 400 naming one is read right. */
  alsoSent?: readonly ParamName[];
  /** When the answers are the same: what the data says, and the request with an invalid value that decides. */
  tiebreak: { invalid: string; call: () => Promise<unknown> };
  /** A record that breaks the filter (evidence that it was not applied), when records show it. */
  breaks?: (record: T) => string | undefined;
  /** Why the data cannot show the filter, when it cannot: the tiebreak decides without the request. */
  unshown?: string;
}

/**
 * A filter by behaviour, one request: its answer against the base answer of the same window. Records that break
 * the filter make it wrong; a different answer makes it verified; the same answer goes to the tiebreak.
 */
export async function compareToBase<T>(
  ctx: ProbeContext,
  endpoint: string,
  param: ParamName,
  base: FirstPage<T> | undefined,
  fetch: () => Promise<FirstPage<T>>,
  options: CompareOptions<T>,
): Promise<FirstPage<T> | undefined> {
  const { book } = ctx;
  if (options.unshown !== undefined) {
    await ctx.tiebreak(endpoint, param, options.tiebreak.invalid, options.tiebreak.call, options.unshown);
    return undefined;
  }
  if (!base) return void book.unchecked(endpoint, param, 'the base answer of the window could not be read');
  const page = await ctx.askOrFail(endpoint, [param, ...(options.alsoSent ?? [])], fetch, [param]);
  if (!page) return undefined;
  const sent = `${book.wire(param, endpoint)}=${options.shown}`;
  const broken = options.breaks ? page.records.map(options.breaks).find(Boolean) : undefined;
  if (broken) book.wrong(endpoint, param, `sent ${sent}, yet ${broken}`);
  else if (!sameAnswer(page, base))
    book.verified(endpoint, param, `${sent} changed the answer (${change(base, page)})`);
  else {
    const dataSays = isEmpty(base) ? 'both answers are empty' : `${sent} did not change the answer`;
    await ctx.tiebreak(endpoint, param, options.tiebreak.invalid, options.tiebreak.call, dataSays);
  }
  return page;
}

/** How a probe reads its endpoint: extra query options over the wide window, and a page size. */
export type ProbeRead<T = unknown> = (options: object, pageSize?: number) => Promise<FirstPage<T>>;

/** The tiebreak of a filter whose read takes one value: `invalid` sent as the read's `key`, for a page of one. */
export function invalidAs(read: ProbeRead, key: string, invalid: string): CompareOptions['tiebreak'] {
  return { invalid, call: () => read({ [key]: invalid }, 1) };
}

/**
 * The engines filter by behaviour, as every endpoint that takes it is checked: one engine the answers named (or the
 * first of api.engines) against the base answer, with an engine no API knows as the tiebreak.
 */
export async function compareEngines<T>(
  ctx: ProbeContext,
  endpoint: string,
  base: FirstPage<T> | undefined,
  read: ProbeRead<T>,
  options: Pick<CompareOptions, 'alsoSent'> & { breaks?: (engine: string) => CompareOptions<T>['breaks'] } = {},
): Promise<void> {
  const engine = ctx.facts.engines[0] ?? ctx.config.api.engines[0];
  if (engine === undefined) return void ctx.book.unchecked(endpoint, 'engines', NO_ENGINE);
  await compareToBase(ctx, endpoint, 'engines', base, () => read({ engines: [engine] }), {
    shown: engine,
    alsoSent: options.alsoSent,
    tiebreak: { invalid: 'not-an-engine', call: () => read({ engines: ['not-an-engine'] }, 1) },
    breaks: options.breaks?.(engine),
  });
}

/** The topics filter by behaviour: one topic that has answers in the window against the base answer. */
export async function compareTopics<T>(
  ctx: ProbeContext,
  endpoint: string,
  base: FirstPage<T> | undefined,
  read: ProbeRead<T>,
  options: Pick<CompareOptions, 'alsoSent'> = {},
): Promise<void> {
  const topic = ctx.facts.topics[0]?.id;
  if (topic === undefined) return void ctx.book.unchecked(endpoint, 'topic_ids', NO_TOPIC);
  await compareToBase(ctx, endpoint, 'topic_ids', base, () => read({ topicIds: [topic] }), {
    shown: String(topic),
    alsoSent: options.alsoSent,
    tiebreak: { invalid: 'x', call: () => read({ topicIds: ['x'] }, 1) },
  });
}
