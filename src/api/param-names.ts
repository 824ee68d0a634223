/**
 * The spec does not show the query parameter names of the GET endpoints ("Endpoints", shared rules), so
 * every name bvsync sends is one of these defaults, mapped through `api.params` (default name -> wire name).
 * The simulator accepts the same defaults and can be told other wire names with `--params`.
 */
export const DEFAULT_PARAM_NAMES = [
  'start_date',
  'end_date',
  'engines',
  'topic_ids',
  'page',
  'page_size',
  'group_id',
  'ungrouped',
  'search',
  'sort',
  'order',
  'confirmed',
  'type',
  'title',
  'topic_id',
  'scenario_id',
  'mentioned',
  'recommended',
  'include_scenarios',
  'ownership',
  'content_types',
  'sentiment',
  'first_party',
  'period',
  'domains',
  'metric',
  'subject',
  'url',
  'domain',
  'phrase',
  'competitors',
] as const;

export type ParamName = (typeof DEFAULT_PARAM_NAMES)[number];

/** A mapping from bvsync's default parameter names to the names on the wire; unmapped names pass as they are. */
export type ParamMapping = Partial<Record<ParamName, string>>;

export function isParamName(name: string): name is ParamName {
  return (DEFAULT_PARAM_NAMES as readonly string[]).includes(name);
}

export function wireName(name: ParamName, mapping: ParamMapping): string {
  return mapping[name] ?? name;
}

/** How arrays travel in a query string; the spec does not say. */
export type ArrayFormat = 'repeat' | 'comma';
