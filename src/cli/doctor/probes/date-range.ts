import type { ParamName } from '../../../api/param-names.js';
import { change, fingerprint, type ProbeContext, type Window } from '../probe-context.js';
import { isEmpty, type FirstPage } from './first-page.js';

export interface RangeProbeOptions {
  /** The day a record is of, for answers whose records carry one (then a record outside the range is evidence). */
  dayOfRecord?: (record: unknown) => string | undefined;
  /** Other parameters every request of the probe sends (e.g. a domain), so a 400 naming one is read right. */
  alsoSent?: readonly ParamName[];
  /** This endpoint's records are the evidence of which days have answers (conversations): learn it first. */
  teachesAnswerDays?: boolean;
  /** Sends the window with an invalid start or end, for the tiebreak. */
  invalid?: (name: 'start_date' | 'end_date', bad: string) => Promise<unknown>;
}

export interface RangeAnswers {
  wide: FirstPage;
  lateStart: FirstPage;
  earlyEnd: FirstPage;
}

/**
 * `start_date` and `end_date` by behaviour, three requests: the wide window, the same with a later start, the same
 * with an earlier end. Moving a bound the API applies changes the answer when the data has anything in the days
 * moved over; an answer that does not change, though the conversations show data in those days, means the API
 * ignored the name. Records that carry their day show a bound not applied directly.
 */
export async function probeDateRange(
  ctx: ProbeContext,
  endpoint: string,
  fetch: (window: Window) => Promise<FirstPage>,
  options: RangeProbeOptions = {},
): Promise<RangeAnswers | undefined> {
  const { windows, book, facts } = ctx;
  const sent: ParamName[] = ['start_date', 'end_date', 'engines', ...(options.alsoSent ?? [])];
  const answers: Partial<RangeAnswers> = {};
  for (const key of ['wide', 'lateStart', 'earlyEnd'] as const) {
    const asked = await ctx.ask(endpoint, sent, () => fetch(windows[key]));
    if (!asked.ok) {
      ctx.failed(endpoint, ['start_date', 'end_date'], asked.why);
      return undefined;
    }
    answers[key] = asked.value;
  }
  const { wide, lateStart, earlyEnd } = answers as RangeAnswers;
  const dayOfRecord = options.dayOfRecord;
  if (options.teachesAnswerDays && dayOfRecord) learnAnswerDays(ctx, { wide, lateStart, earlyEnd }, dayOfRecord);

  const judge = async (name: 'start_date' | 'end_date', moved: FirstPage, window: Window, dataInMovedDays: boolean | undefined) => {
    const outside = dayOfRecord
      ? moved.records.map(dayOfRecord).filter((day): day is string => day !== undefined && (day < window.startDate || day > window.endDate))
      : [];
    const bound = name === 'start_date' ? `from ${window.startDate}` : `to ${window.endDate}`;
    const beyond = outside.filter((day) => (name === 'start_date' ? day < window.startDate : day > window.endDate));
    if (beyond.length) return book.wrong(endpoint, name, `asked ${bound}, the API sent records of ${beyond.sort()[name === 'start_date' ? 0 : beyond.length - 1]}`);
    if (fingerprint(moved.records, moved.total) !== fingerprint(wide.records, wide.total)) {
      return book.verified(endpoint, name, `asked ${bound} instead of ${windows.wide[name === 'start_date' ? 'startDate' : 'endDate']}: the answer changed (${change(wide, moved)})`);
    }
    const days = name === 'start_date' ? `${windows.wide.startDate}..${window.startDate}` : `${window.endDate}..${windows.wide.endDate}`;
    if (isEmpty(wide)) return book.unchecked(endpoint, name, `no data in ${windows.wide.startDate}..${windows.wide.endDate}; checkable once the brand has some`);
    if (dataInMovedDays) return book.wrong(endpoint, name, `the same answer ${bound} as for the whole window, though the brand has answers in ${days}`);
    const dataSays = `the answer does not change ${bound}`;
    if (options.invalid) await ctx.tiebreak(endpoint, name, 'not-a-day', () => options.invalid!(name, 'not-a-day'), dataSays);
    else book.unchecked(endpoint, name, `${dataSays}; checkable once the brand has data in ${days}`);
  };
  await judge('start_date', lateStart, windows.lateStart, facts.answersBeforeLateStart);
  await judge('end_date', earlyEnd, windows.earlyEnd, facts.answersAfterEarlyEnd);
  if (options.teachesAnswerDays && dayOfRecord) learnAnswerDays(ctx, { wide, lateStart, earlyEnd }, dayOfRecord, endpoint);
  return { wide, lateStart, earlyEnd };
}

/** The conversations' evidence for the other endpoints: do answers exist in the days the moved bounds drop? */
function learnAnswerDays(ctx: ProbeContext, answers: RangeAnswers, dayOfRecord: (record: unknown) => string | undefined, endpoint?: string): void {
  const { windows, facts, book } = ctx;
  const days = [answers.wide, answers.lateStart, answers.earlyEnd].flatMap((page) => page.records.map(dayOfRecord)).filter(Boolean) as string[];
  const endpointVerified = (name: ParamName) => endpoint !== undefined && book.verdictOf(endpoint, name) === 'verified';
  facts.answersBeforeLateStart =
    days.some((day) => day >= windows.wide.startDate && day < windows.lateStart.startDate) ||
    (endpointVerified('start_date') && (answers.wide.total ?? 0) > (answers.lateStart.total ?? 0));
  facts.answersAfterEarlyEnd =
    days.some((day) => day > windows.earlyEnd.endDate && day <= windows.wide.endDate) ||
    (endpointVerified('end_date') && (answers.wide.total ?? 0) > (answers.earlyEnd.total ?? 0));
}
