/**
 * The spec does not show the GET endpoints' query parameter names, so every name bvsync sends is a default name,
 * mapped through `api.params` (default name -> wire name).
 */
export const PAGING_PARAM_NAMES = ['page', 'page_size'] as const;

/** A mapping from bvsync's default parameter names to the names on the wire; unmapped names pass as they are. */
export type ParamMapping = { readonly [name: string]: string | undefined };

export function wireName(name: string, mapping: ParamMapping): string {
  return mapping[name] ?? name;
}

/** How arrays travel in a query string; the spec does not say. */
export type ArrayFormat = 'repeat' | 'comma';

/** One endpoint's wire names: `api.params`, with that endpoint's own names (`api.endpointParams`) over them. */
export function endpointMapping(
  params: ParamMapping,
  endpointParams: { readonly [endpoint: string]: ParamMapping | undefined } | undefined,
  endpoint: string,
): ParamMapping {
  const own = endpointParams?.[endpoint];
  return own ? { ...params, ...own } : params;
}
