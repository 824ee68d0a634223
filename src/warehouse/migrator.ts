import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { MIGRATIONS_DIR } from './paths.js';
import { readValue } from './read-rows.js';
import { readNumberedSqlFiles } from './sql-files.js';
import { inTransaction } from './transaction.js';
import { WarehouseError } from './warehouse-error.js';

export interface MigrateOptions {
  /** Folder of numbered `.sql` files; default the package's `sql/migrations/`. */
  dir?: string;
  /** Apply up to and including this version only; default every file (tests use it to build older databases). */
  target?: number;
}

export interface AppliedMigration {
  version: number;
  name: string;
}

const LEDGER_DDL = `CREATE TABLE IF NOT EXISTS _migrations (
  version    INTEGER PRIMARY KEY,
  name       VARCHAR NOT NULL,
  checksum   VARCHAR NOT NULL,
  applied_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
)`;

/**
 * Checksums a migration had before an edit that changed comments alone, by file: a warehouse that applied the earlier
 * text still opens. 2a4145b moved a path in 016's comment (test/warehouse/migrations.int.test.ts).
 */
const EARLIER_CHECKSUMS: Readonly<Record<string, readonly string[]>> = {
  '016_warehouse_id.sql': ['28a7de44df1b9a475c3f2303775d363778c1b78e74f87f33a5ff8cedfcb936d9'],
};

/**
 * Applies the missing migrations in order, each in a transaction with its ledger row: a crash leaves whole versions.
 * Migrations are append-only: one edited after it was applied is refused rather than silently diverging.
 */
export async function migrate(connection: DuckDBConnection, options: MigrateOptions = {}): Promise<AppliedMigration[]> {
  const files = readNumberedSqlFiles(options.dir ?? MIGRATIONS_DIR).filter(
    (file) => options.target === undefined || file.version <= options.target,
  );
  await connection.run(LEDGER_DDL);
  const reader = await connection.runAndReadAll('SELECT version, name, checksum FROM _migrations ORDER BY version');
  const applied = new Map<number, { name: string; checksum: string }>();
  for (const [version, name, checksum] of reader.getRowsJS() as Array<[number, string, string]>) {
    applied.set(Number(version), { name, checksum });
  }

  const done: AppliedMigration[] = [];
  for (const file of files) {
    const checksum = createHash('sha256').update(file.text).digest('hex');
    const previous = applied.get(file.version);
    if (previous) {
      if (previous.checksum !== checksum && !EARLIER_CHECKSUMS[file.name]?.includes(previous.checksum)) {
        throw new WarehouseError(
          'migration_changed',
          `migration ${file.name} was changed after it was applied (as ${previous.name}); migrations are append-only. ` +
            'Run the bvsync version that made this file, and report the edit (docs/troubleshooting.md)',
        );
      }
      continue;
    }
    const failure = (error: unknown) =>
      new WarehouseError('migration_failed', `migration ${file.name} failed: ${(error as Error).message}`, {
        cause: error,
      });
    await inTransaction(connection, { failure }, async () => {
      await connection.run(file.text);
      await connection.run('INSERT INTO _migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        file.version,
        file.name,
        checksum,
      ]);
    });
    done.push({ version: file.version, name: file.name });
  }
  return done;
}

/** The highest applied migration version, 0 for an empty database. */
export async function schemaVersion(connection: DuckDBConnection): Promise<number> {
  return Number(await readValue(connection, 'SELECT coalesce(max(version), 0) FROM _migrations'));
}
