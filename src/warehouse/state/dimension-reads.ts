import type { RowReader } from '../read-rows.js';
import { LISTED_PAGES_SQL } from './listed-pages.js';
import { ECHOED_ENGINES_SQL } from '../provenance.js';
import { quoteIdent } from '../sql-names.js';

/**
 * The reads a plan makes of a file to learn what its later phases fan out over (src/streams/dimensions.ts), on the
 * working file or the published copy alike, so the writer and `bvsync status` see the same dimensions.
 */
export interface DimensionReads {
  /** One column of a brand's rows of a table: what a stream provides to the streams of later phases. */
  brandColumn(table: string, column: string, brandId: number): Promise<unknown[]>;
  /** The tracked pages the API still lists, or listed from `since` on (`DimensionSource.listedPages`). */
  listedPages(brandId: number, since?: string): Promise<string[]>;
  /** The engines the `info.query` echoes of a stream's slices named, per brand (src/warehouse/provenance.ts). */
  echoedEngines(stream: string): Promise<Map<number, string[]>>;
}

/** The dimension reads through any connection's reader: a read-only published copy's, or the writer's. */
export function dimensionReads(read: RowReader): DimensionReads {
  return {
    brandColumn: async (table, column, brandId) =>
      (
        await read(`SELECT ${quoteIdent(column)} AS value FROM ${quoteIdent(table)} WHERE brand_id = $1`, [brandId])
      ).map((row) => row.value),
    listedPages: async (brandId, since) =>
      (await read(LISTED_PAGES_SQL, [brandId, since ?? null])).map((row) => String(row.url)),
    echoedEngines: async (stream) => {
      const byBrand = new Map<number, string[]>();
      for (const row of await read(ECHOED_ENGINES_SQL, [stream])) {
        const brandId = Number(row.brand_id);
        byBrand.set(brandId, [...(byBrand.get(brandId) ?? []), String(row.engine)]);
      }
      return byBrand;
    },
  };
}
