/** How much memory and how many threads DuckDB may use in one process (the `warehouse` section of the config). */
export interface DuckDbBudget {
  /** DuckDB's `memory_limit`, e.g. `256MB`. */
  memoryLimit: string;
  threads: number;
}

/**
 * The default budget, the config's defaults too: with node's own memory it keeps a worker under 400 MB at any warehouse
 * size, DuckDB spilling past `memory_limit` (docs/performance.md, "Memory"). One thread, as the JavaScript thread
 * needs the other core.
 */
export const DEFAULT_DUCKDB_BUDGET: DuckDbBudget = { memoryLimit: '160MB', threads: 1 };

/** The budget as DuckDB's open settings. */
export function duckdbSettings(budget: DuckDbBudget = DEFAULT_DUCKDB_BUDGET): Record<string, string> {
  return { memory_limit: budget.memoryLimit, threads: String(budget.threads) };
}
