import { addDays } from '../../../days.js';
import type { ParamName } from '../../../streams/registry.js';
import { change, sameAnswer, type ProbeContext, type Window } from '../probe-context.js';
import type { ProbeRead } from './compare.js';
import { isEmpty, type FirstPage } from './first-page.js';

export interface RangeProbeOptions<T> {
  /** The day a record is of, for answers whose records carry one (then a record outside the range is evidence). */
  dayOfRecord?: (record: T) => string | undefined;
  /** Other parameters every request of the probe sends (e.g. a domain), so a 400 naming one is read right. */
  alsoSent?: readonly ParamName[];
}

/**
 * Probes `start_date` and `end_date` with the wide window, a later start and an earlier end: an applied bound changes
 * the answer when the moved days hold data; a record outside the range shows it ignored. Returns the wide answer.
 */
export async function probeDateRange<T>(
  ctx: ProbeContext,
  endpoint: string,
  read: ProbeRead<T>,
  options: RangeProbeOptions<T> = {},
): Promise<FirstPage<T> | undefined> {
  const { windows, book } = ctx;
  const sent: ParamName[] = ['start_date', 'end_date', 'engines', ...(options.alsoSent ?? [])];
  const answers: FirstPage<T>[] = [];
  for (const window of [windows.wide, windows.lateStart, windows.earlyEnd]) {
    const answer = await ctx.askOrFail(endpoint, sent, () => read(window), ['start_date', 'end_date']);
    if (!answer) return undefined;
    answers.push(answer);
  }
  const [wide, lateStart, earlyEnd] = answers as [FirstPage<T>, FirstPage<T>, FirstPage<T>];
  const dayOfRecord = options.dayOfRecord;
  // Only this endpoint's own records show data in the days a moved bound drops: another endpoint's (a SWOT
  // statement's answers are a few of the brand's) may have none there while the brand has many.
  const days = dayOfRecord
    ? answers.flatMap((page) => page.records.map(dayOfRecord)).filter((d): d is string => d !== undefined)
    : [];
  const dataBeforeLateStart = days.some((day) => day >= windows.wide.startDate && day < windows.lateStart.startDate);
  const dataAfterEarlyEnd = days.some((day) => day > windows.earlyEnd.endDate && day <= windows.wide.endDate);

  const judge = async (
    name: 'start_date' | 'end_date',
    moved: FirstPage<T>,
    window: Window,
    dataInMovedDays: boolean,
  ) => {
    const start = name === 'start_date';
    const key = start ? 'startDate' : 'endDate';
    const bound = start ? `from ${window.startDate}` : `to ${window.endDate}`;
    const beyond = (dayOfRecord ? moved.records.map(dayOfRecord) : [])
      .filter((day): day is string => day !== undefined && (start ? day < window.startDate : day > window.endDate))
      .sort();
    const changed = !sameAnswer(moved, wide);
    // Records of the day next to the bound alone, in an answer the bound changed: the API reads the name, and its days
    // are another zone's (the ranges line says so); called wrong, the right name was un-mapped.
    const nextDay = start ? addDays(window.startDate, -1) : addDays(window.endDate, 1);
    if (beyond.length && changed && beyond.every((day) => day === nextDay)) {
      return book.verified(
        endpoint,
        name,
        `asked ${bound}: the answer changed (${change(wide, moved)}), with records of ${nextDay} next to it: the API reads the name, and its days are not UTC days (see the ranges line)`,
      );
    }
    if (beyond.length)
      return book.wrong(
        endpoint,
        name,
        `asked ${bound}, the API sent records of ${start ? beyond[0] : beyond[beyond.length - 1]}`,
      );
    if (changed) {
      return book.verified(
        endpoint,
        name,
        `asked ${bound} instead of ${windows.wide[key]}: the answer changed (${change(wide, moved)})`,
      );
    }
    const movedDays = start
      ? `${windows.wide.startDate}..${window.startDate}`
      : `${window.endDate}..${windows.wide.endDate}`;
    if (isEmpty(wide))
      return book.unchecked(
        endpoint,
        name,
        `no data in ${windows.wide.startDate}..${windows.wide.endDate}; checkable once the brand has some`,
      );
    // Without total_rows only the first pages are compared: a full one shows the newest records, and a moved start
    // changes the answer's tail, which it does not show (an API that applied start_date was called wrong).
    const pageSize = Number(wide.info.page_size);
    const seenWhole =
      wide.total !== undefined ||
      moved.total !== undefined ||
      (pageSize > 0 && wide.records.length + wide.rejects.length < pageSize);
    if (dataInMovedDays && seenWhole)
      return book.wrong(
        endpoint,
        name,
        `the same answer ${bound} as for the whole window, though it holds records of ${movedDays}`,
      );
    const dataSays = seenWhole
      ? `the answer does not change ${bound}`
      : `the first page does not change ${bound}, and no info.total_rows shows the rest`;
    await ctx.tiebreak(endpoint, name, 'not-a-day', () => read({ [key]: 'not-a-day' }, 1), dataSays);
  };
  await judge('start_date', lateStart, windows.lateStart, dataBeforeLateStart);
  await judge('end_date', earlyEnd, windows.earlyEnd, dataAfterEarlyEnd);
  return wide;
}
