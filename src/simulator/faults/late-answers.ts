/**
 * Late answers: with the knob on, a share of each day's answers shows only 1..lateDays days after its date. Which are
 * late is a fixed permutation of the day's indices, so counting those visible takes O(lateDays) and no generation.
 */

export interface LateSettings {
  /** Share of each day's answers that arrive late, 0..1; 0 turns the knob off. */
  share: number;
  /** Late answers arrive 1..days days after their date. */
  days: number;
}

const PERMUTATION_PRIMES = [1_000_003, 999_983, 15_485_863, 7_919];

function multiplierFor(count: number): number {
  for (const p of PERMUTATION_PRIMES) if (count % p !== 0) return p;
  return 1;
}

function lateCount(count: number, late: LateSettings): number {
  if (late.share <= 0 || late.days <= 0) return 0;
  return Math.floor(count * Math.min(1, late.share));
}

/** Whether answer `index` of a day with `count` answers is visible `age` days after its date. */
export function isVisible(index: number, count: number, offset: number, age: number, late: LateSettings): boolean {
  if (age < 0) return false;
  const lateTotal = lateCount(count, late);
  if (lateTotal === 0) return true;
  // The answer's place in the day's late order; places below the late count are late.
  const rank = (index * multiplierFor(count) + offset) % count;
  if (rank >= lateTotal) return true;
  const delay = 1 + (rank % late.days);
  return delay <= age;
}

/** How many of a day's answers are visible `age` days after its date. */
export function visibleCount(count: number, age: number, late: LateSettings): number {
  if (age < 0) return 0;
  const lateTotal = lateCount(count, late);
  if (lateTotal === 0 || age >= late.days) return count;
  const cycles = Math.floor(lateTotal / late.days);
  const rest = lateTotal % late.days;
  const hidden = cycles * (late.days - age) + Math.max(0, rest - age);
  return count - hidden;
}
