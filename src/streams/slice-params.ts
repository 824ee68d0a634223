import type { SlicePlan } from './stream.js';

/* Slices travel as JSON in job data, so their parameters are checked when a stream reads them. */

/** A slice parameter that must be a string (a domain, a phrase). */
export function stringParam(slice: SlicePlan, name: string): string {
  const value = slice.params[name];
  if (typeof value !== 'string') throw new Error(`slice ${slice.key} lacks the string parameter "${name}"`);
  return value;
}

/** A slice parameter that must be a number (a statement id). */
export function numberParam(slice: SlicePlan, name: string): number {
  const value = slice.params[name];
  if (typeof value !== 'number') throw new Error(`slice ${slice.key} lacks the number parameter "${name}"`);
  return value;
}
