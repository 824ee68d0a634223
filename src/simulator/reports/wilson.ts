/** 95 % Wilson score interval of a proportion: the confidence_interval of the visibility and ranking rows. */
export function wilson(successes: number, trials: number): { lower: number; upper: number } {
  if (trials === 0) return { lower: 0, upper: 0 };
  const z = 1.959963984540054;
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = p + z2 / (2 * trials);
  const margin = z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return { lower: Math.max(0, (centre - margin) / denominator), upper: Math.min(1, (centre + margin) / denominator) };
}

export function ratio(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : numerator / denominator;
}
