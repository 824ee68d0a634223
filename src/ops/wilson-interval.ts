/** z of a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/**
 * The Wilson score interval of `successes / trials` (95% by default), for a week's visibility: daily ci bounds cannot be
 * combined, summed counts can, and Wilson stays inside [0, 1] for small counts. Null when there are no trials.
 */
export function wilsonInterval(successes: number, trials: number, z = Z95): { low: number; high: number } | null {
  if (!(trials > 0)) return null;
  const p = Math.min(1, Math.max(0, successes / trials));
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const center = (p + z2 / (2 * trials)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator;
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}
