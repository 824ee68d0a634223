import { CONTENT_TYPE_VALUES, OWNERSHIP_VALUES, SENTIMENT_VALUES } from '../../api/schemas.js';
import type { Logger } from '../../log.js';
import type { Notifier } from '../../notify/index.js';
import type { SchemaDriftNotice } from '../../notify/notice.js';
import { isWriterFenced } from '../../warehouse/load/commit-fence.js';
import type { DriftEntry, DriftVocabulary } from '../../warehouse/schema-drift.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { isWriterFault } from '../../warehouse/file/writer-fault.js';
import type { RunStore } from '../run/run-store.js';

/** The spec's enum lists ("Enumerations") the stored columns are checked against. */
const VOCABULARY: DriftVocabulary = {
  ownership: OWNERSHIP_VALUES,
  sentiment: SENTIMENT_VALUES,
  contentType: CONTENT_TYPE_VALUES,
};

/** Most entries one `schema_drift` notice lists; the rest are in v_schema_drift. */
const DRIFT_LISTED = 50;

/**
 * Records the run's schema drift at finalize and returns what it saw first. A failure to record it is logged and
 * costs the run nothing, but a writer fault or a lost lease stops the finalize as they stop any write.
 */
export async function recordRunDrift(warehouse: Warehouse, runId: string, log: Logger): Promise<DriftEntry[]> {
  try {
    return await warehouse.recordSchemaDrift(runId, VOCABULARY);
  } catch (error) {
    if (isWriterFault(error) || isWriterFenced(error)) throw error;
    log.warn(
      { run: runId, err: (error as Error).message },
      'could not record the schema drift of the run; it finished all the same',
    );
    return [];
  }
}

/**
 * The `schema_drift` notice of what the run saw first, if anyone asked for it and this process claims it first. Sent
 * once: `_schema_drift` keeps each entry's first run, and the claim in Redis covers a finalize run twice.
 */
export async function claimDriftNotice(
  runs: RunStore,
  notifier: Notifier | undefined,
  runId: string,
  drift: readonly DriftEntry[],
): Promise<SchemaDriftNotice | undefined> {
  if (drift.length === 0 || !notifier?.wants('schema_drift')) return undefined;
  if (!(await runs.claimNotice(runId, 'schema_drift'))) return undefined;
  return {
    event: 'schema_drift',
    run: { id: runId },
    drift: drift.slice(0, DRIFT_LISTED).map((entry) => ({
      table: entry.table,
      kind: entry.kind,
      name: entry.name,
      value: entry.value,
      rows: entry.rowCount,
      example: entry.example,
      looksLike: entry.looksLike,
    })),
  };
}
