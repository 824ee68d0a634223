import type { Answer, AnswerFilter } from './world/answers.js';
import { DAY_MS, simDayString, parseSimDay } from './sim-days.js';
import type { SimulatorState } from './state.js';
import type { BrandWorld } from './world/world-types.js';

/** What a test may know that the API does not show: the generated answers and catalogs. */
export interface SimulatorTruth {
  /** The simulator's today, YYYY-MM-DD. */
  today(): string;
  /** The first day with data, YYYY-MM-DD. */
  firstDay(): string;
  /** A brand's catalog as it is now (writes included). */
  world(brandId: number): BrandWorld;
  /** The answers of a day visible now (clock and late knob), oldest first, with topic/scenario/citations. */
  answers(brandId: number, day: string): Answer[];
  /** Every answer generated for the day, visible or not. */
  generatedAnswers(brandId: number, day: string): Answer[];
  /** Conversations endpoint's total_rows for the range with no filters (days inclusive). */
  totalRows(brandId: number, startDay: string, endDay: string): number;
}

function day(text: string): number {
  const parsed = parseSimDay(text);
  if (parsed === undefined) throw new Error(`not a day: ${text}`);
  return parsed;
}

export function createTruth(sim: SimulatorState): SimulatorTruth {
  const wholeDay = (d: number): AnswerFilter => ({ startMs: d * DAY_MS, endMs: (d + 1) * DAY_MS - 1 });
  return {
    today: () => simDayString(sim.clock.today()),
    firstDay: () => simDayString(sim.firstDay),
    world: (brandId) => sim.world(brandId),
    answers: (brandId, text) => {
      const d = day(text);
      if (d < sim.firstDay || d > sim.clock.today()) return [];
      return sim.store.dayList(brandId, d, wholeDay(d)).slice();
    },
    generatedAnswers: (brandId, text) => sim.store.generatedDay(brandId, day(text)).slice(),
    totalRows: (brandId, startText, endText) => {
      let total = 0;
      for (let d = Math.max(day(startText), sim.firstDay); d <= Math.min(day(endText), sim.clock.today()); d++)
        total += sim.store.visibleDayCount(brandId, d);
      return total;
    },
  };
}
