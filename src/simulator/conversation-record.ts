import type { Answer } from './answers.js';
import { isoTime } from './days.js';
import type { BrandWorld } from './world.js';

/** The conversation record of endpoint 13: the answer without its internal topic, scenario and citations. */
export function conversationRecord(answer: Answer, world: BrandWorld) {
  const competitors = world.basis.competitors;
  return {
    id: answer.id,
    date: isoTime(answer.time),
    model: answer.engine,
    has_shopping: answer.hasShopping,
    mentioned: answer.mentioned,
    recommended: answer.recommended,
    ...(answer.position !== undefined ? { position: answer.position } : {}),
    ...(answer.recommendationPosition !== undefined ? { recommendation_position: answer.recommendationPosition } : {}),
    ...(answer.factCheckPassed !== undefined ? { fact_check_passed: answer.factCheckPassed } : {}),
    brands: answer.brands.map((mention) => {
      if (mention.who === -1) return { name: world.brand.name, website: world.brand.website, position: mention.position, is_own_brand: true };
      const competitor = competitors[mention.who]!.competitor;
      return { name: competitor.name, website: competitor.website, position: mention.position, is_own_brand: false };
    }),
  };
}
