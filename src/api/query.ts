import { wireName, type ArrayFormat, type ParamMapping } from './param-names.js';
import { utcDayOf } from '../days.js';

/** A value of one query filter; `undefined`, `null` and empty arrays are left out of the query. */
export type QueryValue = string | number | boolean | Date | ReadonlyArray<string | number> | null | undefined;

/** Filters under bvsync's default parameter names (those the endpoint declarations list). */
export type QueryParams = Record<string, QueryValue>;

export interface QueryEncoding {
  params: ParamMapping;
  arrayFormat: ArrayFormat;
}

/**
 * The query string (no `?`) of filters named by bvsync's default names, each under its wire name. Dates become the UTC
 * day, booleans `true`/`false`; the spec wants arrays of at least one element, so an empty array is left out.
 */
export function buildQuery(filters: QueryParams, encoding: QueryEncoding): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    if (value === undefined || value === null) continue;
    const wire = wireName(name, encoding.params);
    if (Array.isArray(value)) {
      const items = (value as ReadonlyArray<string | number>).map(String);
      if (items.length === 0) continue;
      if (encoding.arrayFormat === 'comma') search.append(wire, items.join(','));
      else for (const item of items) search.append(wire, item);
    } else {
      search.append(wire, value instanceof Date ? formatDay(value) : String(value));
    }
  }
  return search.toString();
}

/** The UTC day of a date, as the spec's range filters take it ("a day in UTC"). */
export function formatDay(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('invalid date');
  return utcDayOf(date);
}

/** The path of a brand-scoped endpoint; every segment is percent-encoded (domains and ids come from data). */
export function brandPath(brandId: number | string, ...segments: Array<string | number>): string {
  return ['/customer/v1/brands', brandId, ...segments]
    .map((s, i) => (i === 0 ? s : encodeURIComponent(String(s))))
    .join('/');
}

/** `path?query`, or the path alone when there is no query. */
export function withQuery(path: string, query: string): string {
  return query ? `${path}?${query}` : path;
}
