import type { Answer } from '../world/answers.js';
import { simDayString, isoTime, isoTimeInDay } from '../sim-days.js';
import type { BrandWorld } from '../world/world-types.js';

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
      if (mention.who === -1)
        return { name: world.brand.name, website: world.brand.website, position: mention.position, is_own_brand: true };
      const competitor = competitors[mention.who]!.competitor;
      return { name: competitor.name, website: competitor.website, position: mention.position, is_own_brand: false };
    }),
  };
}

/** JSON of each named brand up to its position, per world: names and websites never change after start. */
const brandPrefixes = new WeakMap<BrandWorld, string[]>();

function prefixes(world: BrandWorld): string[] {
  let list = brandPrefixes.get(world);
  if (!list) {
    list = [`{"name":${JSON.stringify(world.brand.name)},"website":${JSON.stringify(world.brand.website)},"position":`];
    for (const { competitor } of world.basis.competitors) {
      list.push(
        `{"name":${JSON.stringify(competitor.name)},"website":${JSON.stringify(competitor.website)},"position":`,
      );
    }
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
