import type { DuckDBConnection } from '@duckdb/node-api';
import type { CommitFence } from './load/commit-fence.js';

/**
 * Runs `work` in one transaction: committed once `fence` (when given) confirms as the last step, rolled back on any
 * failure, which is thrown again.
 */
export async function inTransaction<T>(
  connection: DuckDBConnection,
  work: () => Promise<T>,
  fence?: CommitFence,
): Promise<T> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const result = await work();
    await fence?.confirm();
    await connection.run('COMMIT');
    return result;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
