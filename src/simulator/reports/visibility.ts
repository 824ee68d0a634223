import type { Answer, AnswerFilter, AnswerStore } from '../world/answers.js';
import type { BrandWorld } from '../world/world-types.js';
import { ratio, wilson } from './wilson.js';

/** Counts behind one visibility row (a topic or a scenario). */
interface Tally {
  conversations: number;
  days: Set<number>;
  mentioned: number;
  /** Every brand named, over all answers: the denominator of share of voice. */
  brandMentions: number;
  /** Answers naming each competitor, by index into basis.competitors. */
  competitorAnswers: number[];
}

function emptyTally(competitors: number): Tally {
  return {
    conversations: 0,
    days: new Set(),
    mentioned: 0,
    brandMentions: 0,
    competitorAnswers: new Array<number>(competitors).fill(0),
  };
}

function bump(map: Map<number, Tally>, key: number, answer: Answer, competitors: number): void {
  let tally = map.get(key);
  if (!tally) map.set(key, (tally = emptyTally(competitors)));
  tally.conversations++;
  tally.days.add(answer.day);
  if (answer.mentioned) tally.mentioned++;
  tally.brandMentions += answer.brands.length;
  for (const mention of answer.brands) if (mention.who >= 0) tally.competitorAnswers[mention.who]!++;
}

function tallyRange(store: AnswerStore, world: BrandWorld, filter: AnswerFilter) {
  const topics = new Map<number, Tally>();
  const scenarios = new Map<number, Tally>();
  const competitors = world.basis.competitors.length;
  store.forEach(world.brand.id, filter, (answer) => {
    bump(topics, answer.topicId, answer, competitors);
    bump(scenarios, answer.scenarioId, answer, competitors);
  });
  return { topics, scenarios };
}

/** The measures of a subject the tally's answers named `hits` times, and the window before `before` times. */
function measures(hits: number, before: number, tally: Tally, previous: Tally | undefined) {
  return {
    conversations: tally.conversations,
    visibility: ratio(hits, tally.conversations),
    ...(previous && previous.conversations > 0
      ? { change: ratio(hits, tally.conversations) - ratio(before, previous.conversations) }
      : {}),
    confidence_interval: wilson(hits, tally.conversations),
    share_of_voice: ratio(hits, tally.brandMentions),
  };
}

function brandEntries(world: BrandWorld, tally: Tally, previous: Tally | undefined) {
  const own = {
    name: world.brand.name,
    website: world.brand.website,
    is_own_brand: true,
    ...measures(tally.mentioned, previous?.mentioned ?? 0, tally, previous),
  };
  // Only competitors the account confirmed appear, as on the dashboard; the current state counts, so a
  // confirmed suggestion shows with its history.
  const competitors = world.basis.competitors
    .map((entry, index) => ({ entry, index, answers: tally.competitorAnswers[index] ?? 0 }))
    .filter(({ entry }) => entry.competitor.is_actual)
    .map(({ entry, index, answers }) => ({
      name: entry.competitor.name,
      website: entry.competitor.website,
      is_own_brand: false,
      ...measures(answers, previous?.competitorAnswers[index] ?? 0, tally, previous),
    }))
    .sort((a, b) => b.visibility - a.visibility || a.name.localeCompare(b.name))
    .slice(0, 5);
  return [own, ...competitors];
}

/** The measures of a topic or scenario row, and its brand entries. */
function row(world: BrandWorld, tally: Tally, previous: Tally | undefined) {
  const { conversations, ...rest } = measures(tally.mentioned, previous?.mentioned ?? 0, tally, previous);
  return { conversations, days: tally.days.size, ...rest, brands: brandEntries(world, tally, previous) };
}

/**
 * Endpoint 16, a row per topic with answers: visibility = answers mentioning the brand / answers; change = visibility
 * less that of the same-length window just before; share_of_voice = the brand's mentions / every brand mention.
 */
export function visibilityReport(
  store: AnswerStore,
  world: BrandWorld,
  filter: AnswerFilter,
  includeScenarios: boolean,
) {
  const current = tallyRange(store, world, filter);
  const length = filter.endMs - filter.startMs + 1;
  const previous = tallyRange(store, world, { ...filter, startMs: filter.startMs - length, endMs: filter.startMs - 1 });
  return world.basis.topics
    .filter((entry) => current.topics.has(entry.topic.id))
    .map((entry) => ({
      topic_id: entry.topic.id,
      name: entry.topic.name,
      ...row(world, current.topics.get(entry.topic.id)!, previous.topics.get(entry.topic.id)),
      ...(includeScenarios
        ? {
            scenarios: entry.scenarios
              .filter((scenario) => current.scenarios.has(scenario.id))
              .map((scenario) => ({
                scenario_id: scenario.id,
                text: scenario.text,
                ...row(world, current.scenarios.get(scenario.id)!, previous.scenarios.get(scenario.id)),
              })),
          }
        : {}),
    }));
}
