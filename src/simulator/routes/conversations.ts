import type { Answer } from '../world/answers.js';
import { conversationJson, conversationRecord } from './conversation-record.js';
import { simDayString } from '../sim-days.js';
import { pagedInfo, readAnswerFilter, readPaging } from './common.js';
import type { Route } from './route.js';

/**
 * Endpoint 13. Counting is per day and O(1) for a day the filters leave whole, so total_rows and finding the
 * day a page starts in cost O(days); only the days the page touches are generated.
 */
export const conversationsRoute: Route = {
  method: 'GET',
  pattern: /^\/conversations$/,
  name: 'conversations',
  handle(context) {
    const { sim, world, query, brandId } = context;
    const filter = readAnswerFilter(context, { engineDefault: 'all', topics: false });
    const topicId = query.int('topic_id', { min: 1 });
    const scenarioId = query.int('scenario_id', { min: 1 });
    const mentioned = query.bool('mentioned');
    const recommended = query.bool('recommended');
    const sort = query.oneOf('sort', ['newest', 'oldest'] as const) ?? 'newest';
    const paging = readPaging(query);
    query.finish();
    if (topicId !== undefined) filter.topicIds = new Set([topicId]);
    if (scenarioId !== undefined) filter.scenarioId = scenarioId;
    if (mentioned !== undefined) filter.mentioned = mentioned;
    if (recommended !== undefined) filter.recommended = recommended;

    const { first, last } = sim.store.daysOf(filter);
    const days = Array.from({ length: last - first + 1 }, (_, i) => first + i);
    if (sort === 'newest') days.reverse();
    const counts = days.map((day) => sim.store.countDay(brandId, day, filter));
    // The rangeSurplusDays knob: a day listed counts once more in a range of days, never in the day alone.
    const surplus =
      days.length > 1 ? days.filter((day) => sim.knobs.rangeSurplusDays.includes(simDayString(day))).length : 0;
    const total = counts.reduce((sum, n) => sum + n, 0) + surplus;

    const records: Answer[] = [];
    let skip = (paging.page - paging.firstPage) * paging.pageSize;
    for (let i = 0; i < days.length && records.length < paging.pageSize; i++) {
      const count = counts[i]!;
      if (skip >= count) {
        skip -= count;
        continue;
      }
      const list = sim.store.dayList(brandId, days[i]!, filter);
      while (skip < list.length && records.length < paging.pageSize) {
        records.push(sort === 'newest' ? list[list.length - 1 - skip]! : list[skip]!);
        skip++;
      }
      skip = 0;
    }
    const info = pagedInfo(paging, total);
    return {
      get body() {
        return { data: records.map((answer) => conversationRecord(answer, world)), info };
      },
      json: () => {
        let dayText = '';
        let day = -1;
        const parts = records.map((answer) => {
          if (answer.day !== day) {
            day = answer.day;
            dayText = simDayString(day);
          }
          return conversationJson(answer, world, dayText);
        });
        return `{"data":[${parts.join(',')}],"info":${JSON.stringify(info)}}`;
      },
    };
  },
};
