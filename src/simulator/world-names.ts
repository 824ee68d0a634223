import type { Random } from './random.js';
import { BRAND_PREFIXES, BRAND_SUFFIXES } from './word-lists.js';

/** Names, websites and colours of a generated world. */

export function brandName(rng: Random): string {
  return `${rng.pick(BRAND_PREFIXES)}${rng.pick(BRAND_SUFFIXES)}`;
}

export function website(name: string): string {
  return `${name.toLowerCase().replace(/[^a-z0-9]+/g, '')}.com`;
}

export function color(rng: Random): string {
  return `#${rng.int(0x1000000).toString(16).padStart(6, '0')}`;
}
