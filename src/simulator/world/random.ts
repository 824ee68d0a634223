/**
 * Seeded randomness. Every piece of generated data draws from a generator keyed by (seed, brand, day, ...),
 * so any day of any brand is generated on its own and always identically, whatever was generated before.
 */

const TWO_32 = 4294967296;

function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit hash of integer keys (keys may exceed 32 bits: their high part is mixed in too). */
export function hashKeys(...keys: number[]): number {
  let h = 0x811c9dc5;
  for (const key of keys) {
    const low = key >>> 0;
    const high = Math.floor(key / TWO_32) >>> 0;
    h = mix32(h ^ Math.imul(low, 0x9e3779b1));
    if (high !== 0) h = mix32(h ^ Math.imul(high, 0x7feb352d));
  }
  return h;
}

/** A 32-bit hash of a string, to key generators by names (e.g. a knob's name). */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix32(h);
}

/** A uniform number in [0, 1) derived from the keys alone, without making a generator. */
export function unitFor(...keys: number[]): number {
  return hashKeys(...keys) / TWO_32;
}

/** mulberry32: small, fast, good enough for test data. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / TWO_32;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max], both included. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  /** Picks by weight; weights need not sum to 1. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let r = this.next() * weights.reduce((total, w) => total + w, 0);
    for (let i = 0; i < items.length; i++) {
      r -= weights[i] ?? 0;
      if (r < 0) return items[i] as T;
    }
    return items[items.length - 1] as T;
  }

  /** k distinct items, in random order. */
  sample<T>(items: readonly T[], k: number): T[] {
    const copy = items.slice();
    const count = Math.min(k, copy.length);
    for (let i = 0; i < count; i++) {
      const j = i + this.int(copy.length - i);
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy.slice(0, count);
  }
}

export function randomFor(...keys: number[]): Random {
  return new Random(hashKeys(...keys));
}
