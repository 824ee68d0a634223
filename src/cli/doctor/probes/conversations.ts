import type { ParamName } from '../../../streams/registry.js';
import type { Conversation } from '../../../streams/conversations.js';
import { addDays } from '../../../days.js';
import { ENDPOINTS } from '../endpoints.js';
import { looseDayOf, sameAnswer, type ProbeContext } from '../probe-context.js';
import { probeDateRange } from './date-range.js';
import type { ProbeRead } from './compare.js';
import { firstPage, isEmpty, type FirstPage } from './first-page.js';
import { probePaging } from './paging.js';

const endpoint = ENDPOINTS.conversations;
const PAGE = 100;
const dayOfAnswer = (record: Conversation) => looseDayOf(record.date);
const reader =
  (ctx: ProbeContext): ProbeRead<Conversation> =>
  (options, pageSize = PAGE) =>
    firstPage(ctx.client.conversations(ctx.brand, { ...ctx.windows.wide, pageSize, ...options }));

/**
 * Endpoint 13's range first: its answers carry their engine, so they show the engines the other probes send.
 * Three requests.
 */
export async function probeConversationDates(ctx: ProbeContext): Promise<FirstPage<Conversation> | undefined> {
  const read = reader(ctx);
  const wide = await probeDateRange(ctx, endpoint, read, { dayOfRecord: dayOfAnswer });
  ctx.offerControl(endpoint, 'start_date', () => read({ startDate: 'not-a-day' }, 1));
  ctx.offerControl(endpoint, 'end_date', () => read({ endDate: 'not-a-day' }, 1));
  if (wide) {
    ctx.facts.engines = [...new Set(wide.records.map((c) => c.model))].sort();
    await probeOneDay(ctx, wide);
  }
  return wide;
}

/**
 * A range of one day (start_date = end_date), the only one daily slices send: an API reading the end as exclusive
 * answers nothing, and every daily slice would load empty and complete. One request, plus its last page (lastPageOfDay).
 */
async function probeOneDay(ctx: ProbeContext, wide: FirstPage<Conversation>): Promise<void> {
  const counts = new Map<string, number>();
  for (const record of wide.records) {
    const day = dayOfAnswer(record);
    if (day) counts.set(day, (counts.get(day) ?? 0) + 1);
  }
  const [day, seen] = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0] ?? [];
  if (day === undefined || seen === undefined) return;
  const answer = await ctx.ask(endpoint, ['start_date', 'end_date'], () =>
    reader(ctx)({ startDate: day, endDate: day }),
  );
  if (!answer.ok) return;
  const found = answer.value.total ?? answer.value.records.length;
  const neighbours = new Set([addDays(day, -1), day, addDays(day, 1)]);
  const weekTotal = wide.total ?? wide.records.length;
  const weekDays = counts.size;
  // Without total_rows a full first page is no count: the day's 100 and the week's 100 said nothing of the range.
  const full = (page: FirstPage) => page.records.length + page.rejects.length >= PAGE;
  const counted =
    (wide.total !== undefined && answer.value.total !== undefined) || (!full(wide) && !full(answer.value));
  const ignored = counted && weekDays > 1 && found >= weekTotal;
  // The first page settles it when it shows answers of other days, or the week's: the last is read only otherwise.
  const settled = ignored || answer.value.records.some((record) => dayOfAnswer(record) !== day);
  const tail = settled ? {} : await lastPageOfDay(ctx, day, answer.value);
  const read = [...answer.value.records, ...(tail.page?.records ?? [])];
  const where = tail.page ? ', on its first and last pages' : '';
  // An API whose days are another zone's answers a day with times of a neighbouring UTC day, so its daily figures would
  // be that zone's days. Newest first, a zone west of UTC shows on the first page, one east of it on the last.
  const outside = read.filter((record) => dayOfAnswer(record) !== day);
  const dates = outside.map((record) => record.date).sort();
  const span = `${dates[0]}${dates.length > 1 ? ` .. ${dates.at(-1)}` : ''}${where}`;
  // Another zone's day reaches at most into the UTC days beside it; answers further off, or as many answers as the
  // week's, are a range the API did not apply (names it ignores), which a zone would not explain.
  if (outside.some((record) => !neighbours.has(dayOfAnswer(record) ?? day)) || ignored) {
    ctx.addAssumption(
      false,
      `ranges: a range of one day (${day}..${day}) answers ${found} answers where the week's had ${weekTotal}` +
        (outside.length ? `, ${outside.length} of the ${read.length} read dated outside that day (${span})` : '') +
        ': the API did not apply the range (start_date and end_date in the table: names it ignores), so each daily slice would load its default range under one day',
    );
    return;
  }
  if (outside.length > 0) {
    ctx.addAssumption(
      false,
      `ranges: a range of one day (${day}..${day}) answers ${outside.length} of ${read.length} answers dated outside that UTC day (${span}): ` +
        "the API's days are another time zone's, while bvsync files rows under UTC days (the spec's times are UTC), so each day's report figures would be another zone's day",
    );
    return;
  }
  ctx.addAssumption(
    found > 0,
    found > 0
      ? `ranges: a range of one day (${day}..${day}) holds its answers (${found}), as the daily slices need${tail.unread ? ` (${tail.unread})` : ''}`
      : `ranges: a range of one day (${day}..${day}) gives no answers, though ${seen} of the window's are of that day: the API leaves the end day out ` +
          '(the spec: both ends inclusive), and every daily slice would load empty',
  );
}

/** Pages read past the first in turn, for the last page of a day whose answers carry no total_rows. */
const MAX_TAIL_PAGES = 4;

/**
 * The last page of a one-day read longer than a page, where an API east of UTC files the day's oldest answers: by
 * total_rows, else the pages in turn up to MAX_TAIL_PAGES. `unread` says why no last page was seen, when none was.
 */
async function lastPageOfDay(
  ctx: ProbeContext,
  day: string,
  first: FirstPage<Conversation>,
): Promise<{ page?: FirstPage<Conversation>; unread?: string }> {
  const served = first.records.length + first.rejects.length;
  if (
    served === 0 ||
    (first.total !== undefined && served >= first.total) ||
    (first.total === undefined && served < PAGE)
  )
    return {};
  const readPage = (skipPages: number) =>
    ctx.ask(endpoint, ['start_date', 'end_date'], () => reader(ctx)({ startDate: day, endDate: day, skipPages }));
  const firstNumber = ctx.config.api.firstPage;
  if (first.total !== undefined) {
    const skip = Math.ceil(first.total / served) - 1;
    const last = await readPage(skip);
    ctx.noteUnreadable(endpoint, `page ${firstNumber + skip}, the last of one day (${day})`, last);
    if (!last.ok) return { unread: `its last page, ${firstNumber + skip}, could not be read: ${last.why}` };
    // A count running ahead of the list (lagging, or moving) puts the page past the end: nothing of the day's tail seen.
    if (last.value.records.length + last.value.rejects.length === 0) {
      return {
        unread: `its last page by total_rows, ${firstNumber + skip}, came back empty, so its oldest answers were not seen`,
      };
    }
    return { page: last.value };
  }
  let page: FirstPage<Conversation> | undefined;
  for (let skip = 1; skip <= MAX_TAIL_PAGES; skip++) {
    const next = await readPage(skip);
    ctx.noteUnreadable(endpoint, `page ${firstNumber + skip} of one day (${day})`, next);
    if (!next.ok) return { page, unread: `page ${firstNumber + skip} could not be read: ${next.why}` };
    const count = next.value.records.length + next.value.rejects.length;
    if (count > 0) page = next.value;
    if (count < served) return { page };
  }
  return {
    page,
    unread: `without total_rows, its pages after ${firstNumber + MAX_TAIL_PAGES} were not read, so its oldest answers were not seen`,
  };
}

/** The other filters of endpoint 13, each one request against the wide window's answer, then paging (two). */
export async function probeConversationFilters(
  ctx: ProbeContext,
  wide: FirstPage<Conversation> | undefined,
): Promise<void> {
  const { client, brand, windows, book, facts } = ctx;
  const read = reader(ctx);
  if (!wide || isEmpty(wide)) {
    ctx.failed(
      endpoint,
      ['engines', 'topic_id', 'scenario_id', 'mentioned', 'recommended', 'sort'],
      wide
        ? `no answer in ${windows.wide.startDate}..${windows.wide.endDate}; checkable once the brand has some`
        : 'the answers of the window could not be read',
    );
  } else {
    const ask = (name: ParamName, options: object) =>
      ctx.askOrFail(endpoint, ['start_date', 'end_date', name], () => read(options), [name]);
    const count = (page: FirstPage) => page.total ?? page.records.length;
    const smaller = (page: FirstPage) => count(page) < count(wide);

    // engines: one engine of those the answers came from; an answer of another engine shows it was ignored.
    if (facts.engines.length < 2 && facts.unknownEngines.length > 0) {
      // The answers came from the ids of api.engines the API knows; one it does not know it drops without a word.
      ctx.book.unchecked(
        endpoint,
        'engines',
        `every answer seen is from ${facts.engines[0] ?? 'one engine'}, and the API drops engine ids it does not know (${facts.unknownEngines.join(', ')}: see api.engines below), so an unknown id proves nothing; checkable once api.engines names two ids it knows`,
      );
    } else if (facts.engines.length < 2) {
      await ctx.tiebreak(
        endpoint,
        'engines',
        'not-an-engine',
        () => read({ engines: ['not-an-engine'] }, 1),
        `every answer seen is from ${facts.engines[0] ?? 'one engine'} (answers of two engines would show it)`,
      );
    } else {
      const engine = facts.engines[facts.engines.length - 1]!;
      const page = await ask('engines', { engines: [engine] });
      if (page) {
        const others = page.records.filter((c) => c.model !== engine);
        if (others.length)
          book.wrong(endpoint, 'engines', `asked for ${engine}, the API sent answers of ${others[0]!.model}`);
        else if (smaller(page) || !sameAnswer(page, wide))
          book.verified(endpoint, 'engines', `asked for ${engine}: only its answers came back`);
        else book.wrong(endpoint, 'engines', `the answer for ${engine} alone is the answer for every engine`);
      }
    }

    // topic_id and scenario_id: the visibility report says how many answers a topic has; fewer than all must come back.
    // All back for one id: wrong with `ignored` when the data says so, else the tiebreak decides (`dataSays` why).
    const narrows = async (
      name: 'topic_id' | 'scenario_id',
      id: number | undefined,
      verdicts: { dataSays: string; ignored?: string },
    ) => {
      const what = name === 'topic_id' ? 'topic' : 'scenario';
      const key = name === 'topic_id' ? 'topicId' : 'scenarioId';
      if (id === undefined) {
        const why = `the visibility report shows no ${what} with answers in the window; checkable once one has`;
        return book.unchecked(endpoint, name, why);
      }
      const page = await ask(name, { [key]: id });
      if (!page) return;
      if (smaller(page))
        return book.verified(endpoint, name, `${what} ${id}: ${count(page)} of ${count(wide)} answers`);
      if (verdicts.ignored) return book.wrong(endpoint, name, verdicts.ignored);
      await ctx.tiebreak(endpoint, name, 'x', () => read({ [key]: 'x' }, 1), verdicts.dataSays);
    };
    const topic = facts.topics.find((t) => t.conversations > 0)?.id;
    const topics = facts.topics.length;
    await narrows('topic_id', topic, {
      dataSays: 'the brand has one topic with answers, so every answer is of it',
      ignored:
        topics >= 2
          ? `topic ${topic} gave every answer of the window, though ${topics} topics have answers`
          : undefined,
    });
    const scenario = facts.scenario?.id;
    await narrows('scenario_id', scenario, { dataSays: `scenario ${scenario} gave every answer of the window` });

    // mentioned / recommended: ask for the value that is rarer among the answers, so ignoring it shows at once.
    for (const name of ['mentioned', 'recommended'] as const) {
      const values = wide.records.map((c) => c[name]).filter((v): v is boolean => typeof v === 'boolean');
      if (values.length === 0) {
        book.unchecked(endpoint, name, `no answer has ${name}; checkable once answers carry it`);
        continue;
      }
      const trues = values.filter(Boolean).length;
      const want = trues * 2 < values.length;
      const page = await ask(name, { [name]: want });
      if (!page) continue;
      const against = page.records.filter((c) => typeof c[name] === 'boolean' && c[name] !== want);
      if (against.length)
        book.wrong(
          endpoint,
          name,
          `asked for ${name}=${want}, the API sent ${against.length} answer(s) with ${name} ${!want}`,
        );
      else if (values.some((v) => v !== want))
        book.verified(endpoint, name, `${name}=${want} left out the answers with ${name} ${!want}`);
      else if (smaller(page)) book.verified(endpoint, name, `${name}=${want} gave fewer answers`);
      else
        await ctx.tiebreak(
          endpoint,
          name,
          'maybe',
          () => read({ [name]: 'maybe' }, 1),
          `every answer seen has ${name} ${want}`,
        );
    }

    ctx.offerControl(endpoint, 'mentioned', () => read({ mentioned: 'maybe' }, 1));

    // sort: oldest first must start where newest first ends.
    const days = wide.records.map(dayOfAnswer).filter(Boolean) as string[];
    const page = await ask('sort', { sort: 'oldest' });
    if (page) {
      const oldest = page.records.map(dayOfAnswer).filter(Boolean) as string[];
      const newestFirst = days[0];
      const oneDaySort = () =>
        ctx.tiebreak(
          endpoint,
          'sort',
          'sideways',
          () => read({ sort: 'sideways' }, 1),
          'every answer of the window is of one day',
        );
      if (new Set(days).size < 2 && (wide.total ?? 0) <= wide.records.length) {
        await oneDaySort();
      } else if (oldest[0] !== undefined && newestFirst !== undefined && oldest[0] < newestFirst) {
        book.verified(endpoint, 'sort', `oldest first starts on ${oldest[0]}, newest first on ${newestFirst}`);
      } else if (newestFirst !== undefined && oldest[0] === newestFirst && new Set(days).size < 2) {
        // A first page all of one day, with more pages: only a day before it in the window tells an ignored sort
        // from a window whose answers are all of that day (a week reaching past the API's last day of data).
        const dayBefore = addDays(newestFirst, -1);
        if (dayBefore < windows.wide.startDate) await oneDaySort();
        else {
          const before = await ctx.ask(endpoint, ['start_date', 'end_date'], () => read({ endDate: dayBefore }, 1));
          // Judged by the day of what came back, not by its coming back: an API that ignores end_date (doctor says so
          // on its own row) answers the day itself again.
          const earlier = before.ok
            ? before.value.records.map(dayOfAnswer).find((day) => day !== undefined && day < newestFirst)
            : undefined;
          if (!before.ok) ctx.failed(endpoint, ['sort'], before.why);
          else if (earlier === undefined) await oneDaySort();
          else
            book.wrong(
              endpoint,
              'sort',
              `sort=oldest still starts with the answers of ${oldest[0]}, though the window has answers of ${earlier}`,
            );
        }
      } else {
        book.wrong(
          endpoint,
          'sort',
          `sort=oldest still starts with the answers of ${oldest[0] ?? 'nothing'}, as newest first does`,
        );
      }
    }
  }
  await probePaging(ctx, endpoint, ['start_date', 'end_date', 'engines'], (size) =>
    client.conversations(brand, { ...windows.wide, pageSize: size }),
  );
}
