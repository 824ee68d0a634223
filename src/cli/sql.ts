import { Command, Option } from 'commander';
import { loadConfig } from '../config/load.js';
import { workingPathFor } from '../warehouse/paths.js';
import { openReadOnly } from '../warehouse/published-database.js';
import { formatResult, RESULT_FORMATS, type ResultFormat } from '../warehouse/result-format.js';
import { WarehouseError } from '../warehouse/warehouse-error.js';

export interface SqlFlags {
  db?: string;
  working?: boolean;
  format?: ResultFormat;
  config?: string;
}

/** The database file a read command opens: `--db`, else the config's published file (or its working file). */
export function databasePath(flags: { db?: string; working?: boolean; config?: string }): string {
  const path = flags.db ?? loadConfig({ path: flags.config }).db;
  return flags.working ? workingPathFor(path) : path;
}

export function sqlCommand(): Command {
  return new Command('sql')
    .description('Runs SQL on the published warehouse (read-only) and prints the result of the last statement')
    .argument('<query>', 'SQL, e.g. "SELECT * FROM v_share_of_voice_daily LIMIT 10"')
    .option('--db <path>', 'DuckDB file to read (default: the config\'s db, env BVSYNC_DB)')
    .option('--working', 'read the working file instead of the published copy (fails while a writer holds it)')
    .addOption(new Option('--format <format>', 'output format (default: table on a terminal, csv otherwise)').choices(RESULT_FORMATS))
    .option('-c, --config <path>', 'config file (default: BVSYNC_CONFIG or ./bvsync.config.json)')
    .action(async (query: string, flags: SqlFlags) => {
      const format = flags.format ?? (process.stdout.isTTY ? 'table' : 'csv');
      const database = await openReadOnly(databasePath(flags));
      try {
        const reader = await database.connection.runAndReadAll(query).catch((error: unknown) => {
          throw new WarehouseError('query_failed', `query failed: ${error instanceof Error ? error.message : String(error)}`);
        });
        process.stdout.write(formatResult(reader, format));
      } finally {
        database.close();
      }
    });
}
