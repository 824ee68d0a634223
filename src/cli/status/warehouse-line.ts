import { ADOPT_COMMAND, type PrefixWarehouse } from '../../engine/writer/prefix-warehouse.js';
import { warehouseIdOfFile } from '../../warehouse/state/warehouse-id.js';

/** What `status` and `doctor` say of the warehouse id: the published copy's, and whether the Redis prefix records it. */
export interface WarehouseIdentity {
  redisPrefix: string;
  /** The published copy's id; null when there is no copy, or it is from before warehouse ids. */
  published: string | null;
  /** What the Redis prefix records; null before its first writer (or when Redis was not asked). */
  prefix: PrefixWarehouse | null;
  /** Whether the two are one warehouse; null when either is unknown. */
  matches: boolean | null;
}

/** The id of the published copy at `path`, or null when there is none or it has none (a copy from before migration 016). */
export async function publishedWarehouseId(path: string): Promise<string | null> {
  return (await warehouseIdOfFile(path)) ?? null;
}

export function warehouseIdentity(
  redisPrefix: string,
  published: string | null,
  prefix: PrefixWarehouse | undefined | null,
): WarehouseIdentity {
  return {
    redisPrefix,
    published,
    prefix: prefix ?? null,
    matches: published !== null && prefix ? published === prefix.id : null,
  };
}

/** One line: the published copy's id and the prefix's, and what to do when they differ. */
export function warehouseLine(identity: WarehouseIdentity, publishedPath: string): string {
  const { published, prefix, redisPrefix } = identity;
  const recorded = prefix ? `warehouse ${prefix.id} (${prefix.db} on host ${prefix.host})` : undefined;
  if (!recorded)
    return `warehouse: ${published ? `${publishedPath} is warehouse ${published}; ` : ''}the Redis prefix "${redisPrefix}" records none yet (its next writer records its file)`;
  if (!published)
    return `warehouse: the Redis prefix "${redisPrefix}" keeps its slices in ${recorded}; no published copy with an id at ${publishedPath}`;
  if (identity.matches)
    return `warehouse: ${publishedPath} is warehouse ${published}, the one the Redis prefix "${redisPrefix}" records`;
  return (
    `warehouse: ${publishedPath} is warehouse ${published}, but the Redis prefix "${redisPrefix}" keeps its slices in ${recorded}: ` +
    `this copy was published from another file (another disk at this path, or one adopted since with ${ADOPT_COMMAND}); ` +
    'docs/operations.md, "One warehouse per Redis prefix"'
  );
}
