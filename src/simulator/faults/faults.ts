import type { FaultKind } from '../knobs.js';
import { hashKeys, hashString, unitFor } from '../world/random.js';

const FAULT_KEY = hashString('fault');

/**
 * Whether request number `sequence` (counting API requests since start) fails, and how. A function of the
 * seed and the sequence alone, so a run with the same requests in the same order meets the same faults.
 */
export function faultFor(
  seed: number,
  sequence: number,
  rate: number,
  kinds: readonly FaultKind[],
): FaultKind | undefined {
  if (rate <= 0 || kinds.length === 0) return undefined;
  if (unitFor(seed, FAULT_KEY, sequence) >= rate) return undefined;
  return kinds[hashKeys(seed, FAULT_KEY, sequence, 1) % kinds.length];
}
