import type { ParamName } from '../../streams/registry.js';

// The one list of names doctor tries for a query parameter found wrong (name-search.ts), since the spec shows no
// query parameter names.

/** Fields of the spec's records that mean what a parameter filters by (spec, "Resources and their fields"). */
const SPEC_FIELDS: Partial<Record<ParamName, readonly string[]>> = {
  confirmed: ['is_actual'],
  competitors: ['competitor_ids'],
  topic_ids: ['topic_ids', 'topics'],
  engines: ['answer_engines', 'models', 'model'],
  first_party: ['is_first_party'],
  group_id: ['group_id'],
};

/** How APIs commonly name the two ends of a date range. */
const RANGE_ENDS: Partial<Record<ParamName, readonly string[]>> = {
  start_date: ['start_date', 'from', 'since', 'date_from', 'from_date', 'start', 'startDate', 'dateFrom'],
  end_date: ['end_date', 'to', 'until', 'date_to', 'to_date', 'end', 'endDate', 'dateTo'],
};

/** snake_case of a camelCase name, camelCase of a snake_case one. */
function otherCase(name: string): string {
  return name.includes('_')
    ? name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase())
    : name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** The usual spellings of a name: singular and plural, with `_id`/`_ids` and without, in either case. */
export function spellings(name: string): string[] {
  const snake = name.includes('_') || !/[A-Z]/.test(name) ? name : otherCase(name);
  const base = snake.replace(/_ids?$/, '');
  const singular = base.endsWith('ies')
    ? `${base.slice(0, -3)}y`
    : base.endsWith('s') && !base.endsWith('ss')
      ? base.slice(0, -1)
      : base;
  const plural = singular.endsWith('y') ? `${singular.slice(0, -1)}ies` : `${singular}s`;
  const forms = [snake, singular, plural, `${singular}_id`, `${singular}_ids`];
  return unique([...forms, ...forms.map(otherCase)]);
}

/**
 * The names to try for `param` on an endpoint, best first: `listed` (known to a strict API), the spec's fields, a range's
 * usual ends, the spellings of `param` and `wire`. Leaves out `wire` and `taken` (the endpoint's other names).
 */
export function nameCandidates(
  param: ParamName,
  wire: string,
  taken: ReadonlySet<string>,
  listed: readonly string[] = [],
): string[] {
  const all = [
    ...listed,
    ...(SPEC_FIELDS[param] ?? []),
    ...(RANGE_ENDS[param] ?? []),
    ...spellings(param),
    ...spellings(wire),
  ];
  return unique(all).filter((name) => name !== wire && !taken.has(name) && /^[A-Za-z_][A-Za-z0-9_.[\]-]*$/.test(name));
}

/** Names a 400 lists as those the endpoint knows ("known parameters: a, b, c"; "allowed: a, b"), or none. */
export function listedNames(message: string): string[] {
  const list =
    /\b(?:known|allowed|accepted|supported|valid|expected)(?: query)?(?: param(?:eter)?s?| fields?| names?)?(?: are| is)?\s*[:=]\s*(.+)$/i.exec(
      message,
    )?.[1];
  if (!list) return [];
  return unique(
    list
      .split(/[\s,;|]+/)
      .map((name) => name.replace(/^["'`[(]+|["'`\]).]+$/g, ''))
      .filter((name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)),
  );
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}
