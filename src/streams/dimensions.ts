import type { DimensionReads } from '../warehouse/state/dimension-reads.js';
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
  /** The URLs of the brand's tracked pages, as the API gave them, sorted. */
  pages: string[];
  /** The brand's engines the per-engine streams break reports down by, as its reports' query echoes named them, sorted. */
  engines: string[];
}

export type DimensionName = keyof Dimensions;

export const DIMENSION_NAMES: readonly DimensionName[] = ['domains', 'topicIds', 'pages', 'engines'];

export const NO_DIMENSIONS: Dimensions = { domains: [], topicIds: [], pages: [], engines: [] };

/** The one warehouse read a provider needs: a column of a table's rows of one brand (the warehouse is one). */
export interface DimensionSource {
  brandColumn(table: string, column: string, brandId: number): Promise<unknown[]>;
  /**
   * The URLs of tracked pages the API still lists: of its daily reports in the week up to the latest day read (all,
   * when none was), and for a backfill of its window. A page no longer tracked keeps its row in `tracked_urls`.
   */
  listedPages(brandId: number): Promise<string[]>;
  /** The engines the `info.query` echoes of a stream's slices of one brand named (`_slice_queries`). */
  echoedEngines(stream: string, brandId: number): Promise<string[]>;
}

/**
 * The dimensions a warehouse holds, for one plan; a stream's echoed engines are read once for every brand.
 * `warehouse` is the writer's `Warehouse` or a published copy's reads; `listedSince` a backfill's first day.
 */
export function warehouseDimensions(warehouse: DimensionReads, listedSince?: string): DimensionSource {
  const echoed = new Map<string, Promise<Map<number, string[]>>>();
  return {
    brandColumn: (table, column, brandId) => warehouse.brandColumn(table, column, brandId),
    echoedEngines: async (stream, brandId) => {
      let byBrand = echoed.get(stream);
      if (!byBrand) echoed.set(stream, (byBrand = warehouse.echoedEngines(stream)));
      return (await byBrand).get(brandId) ?? [];
    },
    listedPages: (brandId) => warehouse.listedPages(brandId, listedSince),
  };
}

export type Provides = { [D in DimensionName]?: (source: DimensionSource, brandId: number) => Promise<Dimensions[D]> };

/**
 * The dimensions of one brand that `needed` names, as every stream providing them reads them back (whatever this or
 * an earlier run loaded), with the config's own domains.
 */
export async function readDimensions(
  streams: Iterable<{ provides?: Provides }>,
  needed: ReadonlySet<DimensionName>,
  source: DimensionSource,
  brandId: number,
  configuredDomains: readonly string[],
): Promise<Dimensions> {
  const parts: { [D in DimensionName]: Array<Dimensions[D]> } = { domains: [], topicIds: [], pages: [], engines: [] };
  const providers = [...streams];
  for (const name of DIMENSION_NAMES.filter((dimension) => needed.has(dimension))) {
    for (const stream of providers) {
      const provide = stream.provides?.[name];
      if (provide) (parts[name] as unknown[]).push(await provide(source, brandId));
    }
  }
  return {
    domains: distinctDomains([...parts.domains.flat(), ...(needed.has('domains') ? configuredDomains : [])]),
    topicIds: [...new Set(parts.topicIds.flat())].sort((a, b) => a - b),
    pages: [...new Set(parts.pages.flat())].sort(),
    engines: [...new Set(parts.engines.flat())].sort(),
  };
}

/** The strings of a column read back (URLs, websites), for providers. */
export function texts(values: readonly unknown[]): string[] {
  return values.filter((value): value is string => typeof value === 'string');
}
