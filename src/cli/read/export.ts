import { lstatSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { CONFIG_OPTION, commaList } from '../context.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { formatCount } from '../../format.js';
import { withReadOnly } from '../../warehouse/publish/published-database.js';
import { quoteIdent, quoteLiteral } from '../../warehouse/sql-names.js';
import { UsageError } from '../fail.js';
import { makeOutFolder } from './out-folder.js';
import { databasePath } from './sql.js';
import { descriptionOf } from '../commands.js';
import { endOnInterrupt } from '../signals.js';

type ExportFormat = 'parquet' | 'csv';

interface ExportFlags {
  format: ExportFormat;
  out: string;
  tables?: string;
  db?: string;
  working?: boolean;
  config?: string;
}

const COPY_OPTIONS: Record<ExportFormat, string> = {
  parquet: 'FORMAT parquet, COMPRESSION zstd',
  csv: 'FORMAT csv, HEADER true',
};

export function exportCommand(): Command {
  return new Command('export')
    .description(descriptionOf('export'))
    .usage('--format <format> --out <dir> [options]')
    .addOption(new Option('--format <format>', 'file format').choices(['parquet', 'csv']).makeOptionMandatory())
    .requiredOption('--out <dir>', 'folder to write <table>.parquet / <table>.csv into (created if missing)')
    .option('--tables <names>', 'comma-separated tables or views (default: every table)')
    .option('--db <path>', "DuckDB file to read (default: the config's db, env BVSYNC_DB)")
    .option('--working', 'read the working file instead of the published copy')
    .option(CONFIG_OPTION.flags, CONFIG_OPTION.description)
    .action(async (flags: ExportFlags) => {
      const requested = flags.tables === undefined ? undefined : commaList(flags.tables);
      if (requested?.length === 0)
        throw new UsageError(
          '--tables names no table; name some, as in --tables conversations,citations, or leave it out for every table',
        );
      await withReadOnly(databasePath(flags), async (database) => {
        for (const table of await exportTables(database.connection, flags.format, flags.out, requested))
          process.stdout.write(`${table.name}\t${formatCount(table.rows, 'row')}\t${table.path}\n`);
      });
    });
}

/**
 * Copies each table (`tables`: tables or views; default every table) with DuckDB's own COPY, so types survive in Parquet
 * and nothing passes through JS.
 */
async function exportTables(
  connection: DuckDBConnection,
  format: ExportFormat,
  folder: string,
  tables: string[] | undefined,
): Promise<Array<{ name: string; rows: number; path: string }>> {
  const reader = await connection.runAndReadAll(
    `SELECT table_name, table_type FROM information_schema.tables
     WHERE table_catalog = current_database() AND table_schema = 'main' ORDER BY table_name`,
  );
  const known = new Map((reader.getRowsJS() as Array<[string, string]>).map(([name, type]) => [name, type]));
  const names = [...new Set(tables ?? [...known].filter(([, type]) => type === 'BASE TABLE').map(([name]) => name))];
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length)
    throw new UsageError(
      `no table or view ${unknown.map((n) => `"${n}"`).join(', ')}; known: ${[...known.keys()].join(', ')}`,
    );
  const out = resolve(folder);
  makeOutFolder(out, `the export folder ${out}`);
  const paths = names.map((name) => join(out, `${name}.${format}`));
  const taken = paths.filter((path) => lstatSync(path, { throwIfNoEntry: false })?.isDirectory());
  if (taken.length) throw new UsageError(`${taken.join(', ')}: a folder where the export writes a file; move it away`);
  const removePartials = () => {
    for (const path of paths) rmSync(partialOf(path), { force: true });
  };
  // Exit waits for a running COPY, so a signal interrupts it first (test/warehouse/cli.int.test.ts "ends on SIGTERM").
  const disarm = endOnInterrupt('the export folder keeps its earlier files', () => {
    connection.interrupt();
    removePartials();
  });
  const exported: Array<{ name: string; rows: number; path: string }> = [];
  try {
    // Each file is written beside its name, and the set renamed only once all are whole: a stopped export (a signal, a
    // full disk, a failing view) leaves the folder's earlier export as it was (test/warehouse/cli.int.test.ts).
    for (const [index, name] of names.entries()) {
      const path = paths[index]!;
      const result = await connection.run(
        `COPY (SELECT * FROM main.${quoteIdent(name)}) TO ${quoteLiteral(partialOf(path))} (${COPY_OPTIONS[format]}, USE_TMP_FILE false)`,
      );
      exported.push({ name, rows: result.rowsChanged, path });
    }
    for (const { path } of exported) renameSync(partialOf(path), path);
  } finally {
    disarm();
    removePartials();
  }
  return exported;
}

function partialOf(path: string): string {
  return `${path}.partial`;
}
