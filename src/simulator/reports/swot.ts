import type { Answer, AnswerFilter, AnswerStore } from '../world/answers.js';
import { isoTime } from '../sim-days.js';
import type { BrandWorld, SwotStatement } from '../world/world-types.js';

/**
 * Endpoint 20: a statement's answers, newest first; mentions counts them ahead of the competitors filter, which keeps
 * those naming the brand or a competitor given. A type other than the statement's gives no answers.
 */
export function swotAnswers(
  store: AnswerStore,
  world: BrandWorld,
  filter: AnswerFilter,
  statement: SwotStatement,
  competitorIds: number[] | undefined,
  type: string | undefined,
) {
  const wanted = competitorIds
    ? new Set(
        world.basis.competitors.flatMap((entry, index) => (competitorIds.includes(entry.competitor.id) ? [index] : [])),
      )
    : undefined;
  let mentions = 0;
  const kept: Answer[] = [];
  store.forEach(world.brand.id, filter, (answer) => {
    if (answer.statementId !== statement.id) return;
    mentions++;
    if (type !== undefined && type !== statement.type) return;
    if (wanted && !answer.brands.some((m) => m.who === -1 || wanted.has(m.who))) return;
    kept.push(answer);
  });
  kept.reverse();
  const scenarioText = new Map(world.basis.topics.flatMap((t) => t.scenarios.map((s) => [s.id, s.text] as const)));
  return {
    mentions,
    rows: kept.map((answer) => ({
      conversation_id: answer.id,
      date: isoTime(answer.time),
      text: `${statement.text}: asked "${scenarioText.get(answer.scenarioId) ?? ''}", the answer says so of ${world.brand.name}.`,
      model: answer.engine,
    })),
  };
}
