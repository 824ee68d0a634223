import type { SliceKey } from '../state/bookkeeping.js';

/**
 * What the writer's lease lends each DuckDB commit: a fencing token that only grows, confirmed inside the transaction
 * just before COMMIT, so a writer that lost the lease commits nothing (test/e2e/lease-fence.int.test.ts).
 */
export interface CommitFence {
  /**
   * Resolves with the token when it is still the lease's (renewing the lease); rejects with WriterFencedError
   * otherwise. `slices`: those a slice load's COMMIT would make; a rejection rolls every one of them back.
   */
  confirm(slices?: readonly SliceKey[]): Promise<number>;
}

/** A commit refused because its writer no longer holds the lease: rolled back, and the writer stops being the writer. */
export class WriterFencedError extends Error {
  readonly code = 'writer_fenced';
  constructor(message: string) {
    super(message);
    this.name = 'WriterFencedError';
  }
}

export function isWriterFenced(error: unknown): error is WriterFencedError {
  return error instanceof WriterFencedError || (error instanceof Error && error.name === 'WriterFencedError');
}
