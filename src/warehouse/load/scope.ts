import type { Row, Scope } from './slice-batch.js';

/** A scope column a row does not match: what the slice asked for and what came. */
export interface ScopeMiss {
  column: string;
  value: unknown;
  expected: ReadonlyArray<string | number | boolean>;
}

/** A replace scope compiled once per slice: `check(row)` is the first column the row misses, or undefined. */
export interface CompiledScope {
  check(row: Row): ScopeMiss | undefined;
}

/**
 * Whether rows plainly fall in a replace scope: each scope column holds a scalar whose text equals the scope's value
 * (a missing `brand_id` is the slice's brand, as the loader fills it in).
 */
export function compileScope(scope: Scope, brandId: number): CompiledScope {
  const checks = Object.entries(scope).map(([column, expected]) => {
    const values = Array.isArray(expected)
      ? (expected as ReadonlyArray<string | number>)
      : [expected as string | number | boolean];
    return { column, values, allowed: new Set(values.map((value) => String(value))) };
  });
  return {
    check(row) {
      for (const { column, values, allowed } of checks) {
        let value = row[column];
        if ((value === undefined || value === null) && column === 'brand_id') value = brandId;
        const scalar =
          typeof value === 'string' ||
          typeof value === 'number' ||
          typeof value === 'bigint' ||
          typeof value === 'boolean';
        if (!scalar || !allowed.has(String(value))) return { column, value, expected: values };
      }
      return undefined;
    },
  };
}

const LISTED_VALUES = 5;

/**
 * Says what was asked and what came, e.g. `conversations row dated 2026-11-30 outside the slice's window
 * 2026-11-20..2026-11-20` or `citation_daily row with value "other.com" outside the slice's scope (asked: a.com)`.
 */
export function describeScopeMiss(table: string, miss: ScopeMiss): string {
  const shown =
    miss.value === undefined || miss.value === null
      ? 'no value'
      : typeof miss.value === 'string'
        ? miss.value
        : JSON.stringify(miss.value);
  if (miss.column === 'day') {
    const days = miss.expected.map(String).sort();
    const window = days.length ? `${days[0]}..${days.at(-1)}` : '(no days)';
    return `${table} row dated ${shown} outside the slice's window ${window}`;
  }
  const asked = miss.expected
    .slice(0, LISTED_VALUES)
    .map((value) => JSON.stringify(value))
    .join(', ');
  const more = miss.expected.length > LISTED_VALUES ? ` and ${miss.expected.length - LISTED_VALUES} more` : '';
  return `${table} row with ${miss.column} ${JSON.stringify(shown)} outside the slice's scope (asked for ${miss.column} ${asked || '(none)'}${more})`;
}
