/** How much memory and how many threads DuckDB may use in one process (the `warehouse` section of the config). */
export interface DuckDbBudget {
  /** DuckDB's `memory_limit`, e.g. `256MB`. */
  memoryLimit: string;
  threads: number;
}

/**
 * The default budget, the config's too: with node's memory a worker stays under 400 MB at any warehouse size, DuckDB
 * spilling past `memory_limit` (docs/performance.md, "Memory"); one thread, the JavaScript thread needs the other.
 */
export const DEFAULT_DUCKDB_BUDGET: DuckDbBudget = { memoryLimit: '160MB', threads: 1 };

/** The lowest `memory_limit` a sync was seen to keep the file's indexes whole at (docs/troubleshooting.md). */
const SAFE_MEMORY_LIMIT = '160MB';

/**
 * What to say of a `memoryLimit` below SAFE_MEMORY_LIMIT, or undefined: at 64 MB DuckDB 1.5.5 and 1.5.6 broke a
 * primary-key index of the working file. test/warehouse/duckdb-budget.test.ts.
 */
export function memoryLimitWarning(memoryLimit: string): string | undefined {
  if (parseDuckDbSize(memoryLimit) >= parseDuckDbSize(SAFE_MEMORY_LIMIT)) return undefined;
  return (
    `warehouse.memoryLimit ${memoryLimit} is below ${SAFE_MEMORY_LIMIT}: at 64MB DuckDB broke an index of the working ` +
    `file during a sync. Raise it (BVSYNC_DUCKDB_MEMORY_LIMIT) to ${SAFE_MEMORY_LIMIT} or more ` +
    `(docs/troubleshooting.md, "Corrupted unique ART index")`
  );
}

/** The budget as DuckDB's open settings. */
export function duckdbSettings(budget: DuckDbBudget = DEFAULT_DUCKDB_BUDGET): Record<string, string> {
  return { memory_limit: budget.memoryLimit, threads: String(budget.threads) };
}

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/** A size as DuckDB reads `memory_limit` (`256MB` is 256,000,000 bytes, `1GiB` 2^30); 0 when not understood. */
export function parseDuckDbSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)?\s*$/i.exec(text);
  if (!match) return 0;
  return Math.round(Number(match[1]) * (SIZE_UNITS[(match[2] ?? 'b').toLowerCase()] ?? 0));
}
