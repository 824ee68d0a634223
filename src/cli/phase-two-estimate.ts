/**
 * How many slices phase 2 of a run will plan, guessed before it is planned: phase 2 (citations, domain details, ...)
 * fans out over what phase 1 loads (domains, topics), so its slices exist only once phase 1 is over, and a time left
 * computed from phase 1 alone ends far too early. The guess, per brand and phase-2 stream: the slices per day of the
 * newest finished run that had that brand and stream (from Redis), times this run's days; failing that, `guess`
 * (run-report.ts plans the stream with the dimensions phase 1 has shown so far). Shown with "~" until phase 2 is planned.
 */
export interface PhaseTwoEstimateInput {
  brands: number[];
  /** The run's streams planned in phase 2 (`phaseOf`, src/engine/plan.ts). */
  phaseTwoStreams: string[];
  /** Days in this run's window (known once phase 1 is planned). */
  days: number;
  /** A finished earlier run: its days and its planned slices keyed `brand|stream`. */
  previous?: { days: number; planned: ReadonlyMap<string, number> };
  /** Slices of a brand and stream when no earlier run tells. */
  guess: (brandId: number, stream: string) => number;
}

export function estimatePhaseTwoSlices(input: PhaseTwoEstimateInput): number {
  let total = 0;
  for (const brandId of input.brands) {
    for (const stream of input.phaseTwoStreams) {
      const before = input.previous?.planned.get(`${brandId}|${stream}`);
      total += before !== undefined && input.previous!.days > 0 ? (before / input.previous!.days) * input.days : input.guess(brandId, stream);
    }
  }
  return Math.round(total);
}
