/** How much memory and how many threads DuckDB may use in one process (the `warehouse` section of the config). */
export interface DuckDbBudget {
  /** DuckDB's `memory_limit`, e.g. `256MB`. */
  memoryLimit: string;
  threads: number;
}

/**
 * The default budget, the config's defaults too: with node's own ~100-150 MB it keeps a worker under 400 MB at any
 * warehouse size (docs/performance.md, "Memory"). At 256MB a sync of every stream on 30 days of 2 brands peaked at
 * 425-458 MB of RSS, at 160MB at 384 MB; 5,000,000 conversations still sync at 160MB (294 MB). DuckDB spills to its temp folder beyond `memory_limit`. One thread:
 * the writer's inserts gain little from a second, and on a 2-core worker it takes the core the JavaScript thread
 * needs (a 1,000,000-conversation backfill 53 -> 47 s, 72 -> 61 s of CPU, ~20 MB less RSS with one).
 */
export const DEFAULT_DUCKDB_BUDGET: DuckDbBudget = { memoryLimit: '160MB', threads: 1 };

/** The budget as DuckDB's open settings. */
export function duckdbSettings(budget: DuckDbBudget = DEFAULT_DUCKDB_BUDGET): Record<string, string> {
  return { memory_limit: budget.memoryLimit, threads: String(budget.threads) };
}
