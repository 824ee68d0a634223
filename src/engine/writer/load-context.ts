import type { DayClock } from '../../days.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import type { WriterFault } from '../../warehouse/file/writer-fault.js';
import { RunGoneError } from '../run/run-gone.js';
import type { DescribeBackfill } from '../plan/skip-complete-backfill.js';
import type { HealDeps } from '../schedule/heal.js';
import { runStartOf, type RunMeta } from '../run/run-store.js';

// What the load queue's jobs share: their dependencies, a run's record, and state kept per open file.

/** What the writer's jobs need: heal's jobs run on the same worker, so they take the same dependencies (heal.ts). */
export interface LoadProcessorDeps extends HealDeps {
  /** Most slices committed in one transaction (the job's own and others waiting); default COMMIT_BATCH_SLICES, 1: each alone. */
  commitBatchSlices?: number;
  /** Most rows of one transaction; default COMMIT_BATCH_ROWS (waiting-commits.ts). */
  commitBatchRows?: number;
  /** Told of a full disk or an invalidated database (src/warehouse/file/writer-fault.ts), before the job goes back to wait. */
  onWriterFault: (fault: WriterFault) => void;
  /** Today, UTC; default the process clock. Tests pin the simulator's. */
  today?: DayClock;
  /** Words the backfills the engine advises as commands (src/cli/run/skip-complete-command.ts); default their fields. */
  describeBackfill?: DescribeBackfill;
}

/** The run's record in Redis; one gone from Redis throws RunGoneError, which drops the job (run-gone.ts). */
export async function runMeta(deps: LoadProcessorDeps, runId: string): Promise<RunMeta> {
  const meta = await deps.runs.get(runId);
  if (!meta) throw new RunGoneError(runId);
  return meta;
}

/** What `make` builds of a warehouse, once per open file. */
export function perWarehouse<T>(make: (warehouse: Warehouse) => T): (warehouse: Warehouse) => T {
  const made = new WeakMap<Warehouse, T>();
  return (warehouse) => {
    let value = made.get(warehouse);
    if (value === undefined) made.set(warehouse, (value = make(warehouse)));
    return value;
  };
}

/** Runs whose `_sync_runs` row this writer has described, per open file: one lookup per run, not per commit. */
const describedRuns = perWarehouse(() => new Set<string>());

/**
 * Gives the run its `_sync_runs` row from Redis unless the file has it: a file that missed the plan would else get the
 * row from the loader's counters, of default kind `sync` whatever ran (test/engine/restored-warehouse.int.test.ts).
 */
export async function describedRun(deps: LoadProcessorDeps, runId: string, meta?: RunMeta): Promise<void> {
  const known = describedRuns(deps.warehouse);
  if (known.has(runId)) return;
  if (!(await deps.warehouse.hasRun(runId)))
    await deps.warehouse.startRun(runStartOf(meta ?? (await runMeta(deps, runId))));
  if (known.size >= 1_000) known.clear();
  known.add(runId);
}
