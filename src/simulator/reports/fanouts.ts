import type { AnswerFilter, AnswerStore } from '../world/answers.js';
import { normalizeUrl } from '../normalize-url.js';
import type { BrandWorld } from '../world/world-types.js';

/**
 * Endpoint 15: the searches behind the answers of the range that cite the page (normal form) or the domain.
 * conversations = those answers that ran the search; relevance = conversations / all answers citing the target.
 */
export function fanoutsCited(
  store: AnswerStore,
  world: BrandWorld,
  filter: AnswerFilter,
  target: { url?: string; domain?: string },
) {
  const url = target.url === undefined ? undefined : (normalizeUrl(target.url) ?? target.url);
  const searchAnswers = new Map<number, number>();
  let citingAnswers = 0;
  store.forEach(world.brand.id, filter, (answer) => {
    const cites = answer.citations.some((c) =>
      url !== undefined ? c.page.url === url : c.page.domain === target.domain,
    );
    if (!cites) return;
    citingAnswers++;
    for (const id of answer.searches) searchAnswers.set(id, (searchAnswers.get(id) ?? 0) + 1);
  });
  const queryOf = new Map(world.searches.map((s) => [s.id, s.query] as const));
  return [...searchAnswers.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .map(([id, conversations]) => ({
      id,
      query: queryOf.get(id) ?? '',
      conversations,
      relevance: conversations / citingAnswers,
    }));
}

/** Endpoint 14: the brand's searches holding the phrase (case does not matter), by id. */
export function fanoutsByPhrase(world: BrandWorld, phrase: string) {
  const needle = phrase.toLowerCase();
  return world.searches
    .filter((s) => s.query.toLowerCase().includes(needle))
    .map((s) => ({ id: s.id, query: s.query }));
}
