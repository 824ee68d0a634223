import type { AnswerFilter, AnswerStore } from '../world/answers.js';
import { simDayString } from '../sim-days.js';
import type { BrandWorld } from '../world/world-types.js';
import { citationMatches, type CitationFilter } from './citation-filter.js';

/**
 * Endpoint 18 for one domain: occurrences counts citations (two pages in one answer count twice), over_time[] the days
 * with one or more, each counting distinct citing answers (cited_occurrences). Undefined when there is none.
 */
export function domainDetail(
  store: AnswerStore,
  world: BrandWorld,
  filter: AnswerFilter,
  citationFilter: CitationFilter,
  domain: string,
) {
  let occurrences = 0;
  let isFirstParty = false;
  const byModel = new Map<string, number>();
  const byScenario = new Map<number, number>();
  const byTopic = new Map<number, number>();
  const byDay = new Map<number, { occurrences: number; answers: number }>();
  store.forEach(world.brand.id, filter, (answer) => {
    let inAnswer = 0;
    for (const citation of answer.citations) {
      if (citation.page.domain !== domain || !citationMatches(citation, citationFilter)) continue;
      inAnswer++;
      if (citation.page.firstParty) isFirstParty = true;
    }
    if (inAnswer === 0) return;
    occurrences += inAnswer;
    byModel.set(answer.engine, (byModel.get(answer.engine) ?? 0) + inAnswer);
    byScenario.set(answer.scenarioId, (byScenario.get(answer.scenarioId) ?? 0) + inAnswer);
    byTopic.set(answer.topicId, (byTopic.get(answer.topicId) ?? 0) + inAnswer);
    const day = byDay.get(answer.day) ?? { occurrences: 0, answers: 0 };
    day.occurrences += inAnswer;
    day.answers++;
    byDay.set(answer.day, day);
  });
  if (occurrences === 0) return undefined;
  const topicName = new Map(world.basis.topics.map((t) => [t.topic.id, t.topic.name] as const));
  const scenarioText = new Map(world.basis.topics.flatMap((t) => t.scenarios.map((s) => [s.id, s.text] as const)));
  const byCount = <K>(map: Map<K, number>) => [...map.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return {
    domain,
    is_first_party: isFirstParty || domain === world.brand.website,
    occurrences,
    by_model: byCount(byModel).map(([model, value]) => ({ model, occurrences: value })),
    by_scenario: byCount(byScenario).map(([id, value]) => ({
      scenario_id: id,
      text: scenarioText.get(id) ?? '',
      occurrences: value,
    })),
    by_topic: byCount(byTopic).map(([id, value]) => ({
      topic_id: id,
      name: topicName.get(id) ?? '',
      occurrences: value,
    })),
    over_time: [...byDay.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([day, value]) => ({
        date: simDayString(day),
        occurrences: value.occurrences,
        cited_occurrences: value.answers,
      })),
  };
}
