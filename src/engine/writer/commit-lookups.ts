import { sliceKeyText, type SliceKey, type StoredSliceState } from '../../warehouse/state/bookkeeping.js';
import type { Warehouse } from '../../warehouse/warehouse.js';

/** What a commit job needs to know of its slice before it loads: whether its fetch committed already, and the stored state. */
export interface CommitLookup {
  /** The fetch's token is in the ledger: a replay after COMMIT, with only its outcome left to record (slice-commits.ts). */
  committed: boolean;
  stored: StoredSliceState | undefined;
}

interface Pending {
  slice: SliceKey & { token: string };
  resolve: (lookup: CommitLookup) => void;
  reject: (error: unknown) => void;
}

/**
 * Gathers the lookups asked in one turn of the event loop into one `Warehouse.commitLookups` for the whole batch.
 * Proved by test/engine/commit-lookups.int.test.ts.
 */
export class CommitLookups {
  private pending: Pending[] = [];

  constructor(private readonly warehouse: Pick<Warehouse, 'commitLookups'>) {}

  of(slice: SliceKey & { token: string }): Promise<CommitLookup> {
    return new Promise<CommitLookup>((resolve, reject) => {
      this.pending.push({ slice, resolve, reject });
      // The next turn, not a microtask: a caller that awaits something synchronous-looking first still joins the batch.
      if (this.pending.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const asked = this.pending;
    this.pending = [];
    try {
      const { committed, states } = await this.warehouse.commitLookups(asked.map((item) => item.slice));
      for (const item of asked)
        item.resolve({ committed: committed.has(item.slice.token), stored: states.get(sliceKeyText(item.slice)) });
    } catch (error) {
      for (const item of asked) item.reject(error);
    }
  }
}
