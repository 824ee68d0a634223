import type { Answer } from '../world/answers.js';
import { simDayString, isoTime, isoTimeInDay } from '../sim-days.js';
import type { BrandWorld } from '../world/world-types.js';

/** The conversation record of endpoint 13: the answer without its internal topic, scenario and citations. */
export function conversationRecord(answer: Answer, world: BrandWorld) {
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
    brands: answer.brands.map(({ who, position }) => {
      const { name, website } = who === -1 ? world.brand : world.basis.competitors[who]!.competitor;
      return { name, website, position, is_own_brand: who === -1 };
    }),
  };
}

/** JSON of each named brand up to its position, per world: names and websites never change after start. */
const brandPrefixes = new WeakMap<BrandWorld, string[]>();

function prefixes(world: BrandWorld): string[] {
  let list = brandPrefixes.get(world);
  if (!list) {
    // Indexed by a mention's `who` + 1: the brand first, then the competitors of the basis.
    list = [world.brand, ...world.basis.competitors.map((entry) => entry.competitor)].map(
      ({ name, website }) => `{"name":${JSON.stringify(name)},"website":${JSON.stringify(website)},"position":`,
    );
    brandPrefixes.set(world, list);
  }
  return list;
}

/**
 * The same record as `conversationRecord`, written straight to JSON (same bytes as JSON.stringify of it): a page of
 * conversations is the simulator's hottest path.
 */
export function conversationJson(
  answer: Answer,
  world: BrandWorld,
  dayText: string = simDayString(answer.day),
): string {
  const brandJson = prefixes(world);
  let out = `{"id":${answer.id},"date":"${isoTimeInDay(dayText, answer.time)}","model":"${answer.engine}","has_shopping":${answer.hasShopping},"mentioned":${answer.mentioned},"recommended":${answer.recommended}`;
  if (answer.position !== undefined) out += `,"position":${answer.position}`;
  if (answer.recommendationPosition !== undefined) out += `,"recommendation_position":${answer.recommendationPosition}`;
  if (answer.factCheckPassed !== undefined) out += `,"fact_check_passed":${answer.factCheckPassed}`;
  out += ',"brands":[';
  for (let i = 0; i < answer.brands.length; i++) {
    const mention = answer.brands[i]!;
    if (i > 0) out += ',';
    out += `${brandJson[mention.who + 1]}${mention.position},"is_own_brand":${mention.who === -1}}`;
  }
  return `${out}]}`;
}
