/**
 * How many slices phase 2 of a run will plan, guessed before it is planned: phase 2 (citations, domain details, ...)
 * fans out over what phase 1 loads (domains, topics), so its slices exist only once phase 1 is over, and a time left
 * computed from phase 1 alone ends far too early. The guess, per brand and phase-2 stream: the slices per day of the
 * newest finished run that had that brand and stream (from Redis), times this run's days; failing that, as many as
 * the brand's phase-1 streams planned on average. Shown with "~" until phase 2 is planned.
 */
export interface PhaseTwoEstimateInput {
  brands: number[];
  /** The run's streams planned in phase 2 (`phaseOf`, jobs/plan.ts). */
  phaseTwoStreams: string[];
  /** Days in this run's window (known once phase 1 is planned). */
  days: number;
  /** Planned slices of this run so far (phase 1), keyed `brand|stream`. */
  planned: ReadonlyMap<string, number>;
  /** A finished earlier run: its days and its planned slices keyed `brand|stream`. */
  previous?: { days: number; planned: ReadonlyMap<string, number> };
}

export function estimatePhaseTwoSlices(input: PhaseTwoEstimateInput): number {
  let total = 0;
  for (const brandId of input.brands) {
    const phaseOne = [...input.planned.entries()].filter(([group]) => group.startsWith(`${brandId}|`)).map(([, count]) => count);
    const phaseOneMean = phaseOne.length ? phaseOne.reduce((sum, count) => sum + count, 0) / phaseOne.length : 0;
    for (const stream of input.phaseTwoStreams) {
      const before = input.previous?.planned.get(`${brandId}|${stream}`);
      total += before !== undefined && input.previous!.days > 0 ? (before / input.previous!.days) * input.days : phaseOneMean;
    }
  }
  return Math.round(total);
}
