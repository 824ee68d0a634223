import { existsSync } from 'node:fs';
import { openReadOnly } from '../warehouse/publish/published-database.js';
import { readRows } from '../warehouse/read-rows.js';
import { groupBy } from '../group-by.js';

/** A topic the warehouse has seen (table `topics`, from the visibility report): the API has no read of topics. */
export interface SeenTopic {
  id: number;
  name: string;
  lastSeenDay: string | undefined;
}

/**
 * The brand's topics the warehouse has seen, by name, so a plan can point at the id of a deleted topic to restore
 * instead of creating another. Only a hint: a warehouse that is missing, or has no `topics` table yet, gives none.
 */
export async function warehouseTopics(path: string, brandId: number): Promise<Map<string, SeenTopic[]>> {
  const database = existsSync(path) ? await openReadOnly(path).catch(() => undefined) : undefined;
  if (!database) return new Map();
  try {
    const rows = await readRows(
      database.connection,
      'SELECT id, name, CAST(last_seen_day AS VARCHAR) AS last_seen_day FROM topics WHERE brand_id = $1 AND name IS NOT NULL ORDER BY id',
      [brandId],
    );
    const topics = rows.map((row) => ({
      id: Number(row.id),
      name: String(row.name),
      lastSeenDay: typeof row.last_seen_day === 'string' ? row.last_seen_day : undefined,
    }));
    return groupBy(topics, (topic) => topic.name);
  } catch {
    // A warehouse of an older layout, or not one at all: no hint, not a failure of the plan.
    return new Map();
  } finally {
    database.close();
  }
}
