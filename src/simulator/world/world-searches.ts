import type { Engine } from './engines.js';
import type { AnswerBasis, Competitor, FanoutSearch, Topic, WorldDraft } from './world-types.js';

/** The fan-out searches of each topic, and the topics that run (not deleted at start) as the answers' basis. */
export function drawSearches(
  draft: WorldDraft,
  topics: Topic[],
  competitors: ReadonlyArray<{ competitor: Competitor }>,
) {
  const { rng, nextId, industry, brand } = draft;
  const phrases = [...industry.productNouns];
  const searches: FanoutSearch[] = [];
  const basisTopics: AnswerBasis['topics'] = [];
  for (const topic of topics) {
    const topicSearches: number[] = [];
    for (let k = 0; k < 10; k++) {
      const noun = rng.pick(industry.productNouns);
      const query = rng
        .pick([
          'best {noun} {q}',
          '{noun} {q} reviews',
          '{brand} {noun}',
          '{noun} vs {noun2}',
          'cheap {noun} {q}',
          '{noun} buying guide',
        ])
        .replace('{noun}', noun)
        .replace('{noun2}', rng.pick(industry.productNouns))
        .replace('{q}', rng.pick(industry.qualifiers))
        .replace('{brand}', rng.chance(0.5) ? brand.name : rng.pick(competitors).competitor.name);
      const id = nextId();
      searches.push({ id, query, topicId: topic.id });
      topicSearches.push(id);
    }
    if (!topic.deleted) {
      basisTopics.push({
        topic,
        scenarios: [...topic.scenarios],
        engines: topic.answer_engines as Engine[],
        visibility: 0.2 + rng.next() * 0.6,
        searches: topicSearches,
      });
    }
  }

  return { phrases, searches, basisTopics };
}
