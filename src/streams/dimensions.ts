import { distinctDomains } from './domains.js';

/**
 * What a stream may fan out over, loaded by an earlier phase of the run. Streams name the dimensions they `need`
 * and those they `provide` (with how to read them back), never each other: the planner orders them by it.
 */
export interface Dimensions {
  /** Domains of the brand's pages, competitors and `sync.domains`, as `domainOf` spells them, sorted. */
  domains: string[];
  /** The brand's topics, ascending. */
  topicIds: number[];
}

export type DimensionName = keyof Dimensions;

export const DIMENSION_NAMES: readonly DimensionName[] = ['domains', 'topicIds'];

/** The one warehouse read a provider needs: a column of a table's rows of one brand. */
export interface DimensionSource {
  column(table: string, column: string, brandId: number): Promise<unknown[]>;
}

export const NO_DIMENSIONS: Dimensions = { domains: [], topicIds: [] };

/** Joins what every provider of a dimension read, with the config's own domains. */
export function combineDimensions(parts: { [D in DimensionName]: Array<Dimensions[D]> }, configuredDomains: readonly string[]): Dimensions {
  return {
    domains: distinctDomains([...parts.domains.flat(), ...configuredDomains]),
    topicIds: [...new Set(parts.topicIds.flat())].sort((a, b) => a - b),
  };
}

/** The strings of a column read back (URLs, websites), for providers of `domains`. */
export function texts(values: readonly unknown[]): string[] {
  return values.filter((value): value is string => typeof value === 'string');
}
