import type { DuckDBConnection } from '@duckdb/node-api';
import type { CommitFence } from './load/commit-fence.js';

export interface TransactionOptions {
  /** Confirmed as the last step before COMMIT; refused, the transaction rolls back. */
  fence?: CommitFence | undefined;
  /**
   * The error to throw for a failure of the work, the fence or COMMIT; a failed BEGIN is thrown as it is, as no work ran
   * (test/warehouse/transaction.int.test.ts).
   */
  failure?: (error: unknown) => unknown;
}

/** Runs `work` in one transaction, rolled back on any failure, which is thrown again (mapped by `failure`). */
export async function inTransaction<T>(
  connection: DuckDBConnection,
  { fence, failure }: TransactionOptions,
  work: () => Promise<T>,
): Promise<T> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const result = await work();
    await fence?.confirm();
    await connection.run('COMMIT');
    return result;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw failure ? failure(error) : error;
  }
}
