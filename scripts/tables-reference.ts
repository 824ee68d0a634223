/**
 * Writes docs/reference/tables.md from the migrations and the view files: every table's columns, types and key as
 * DuckDB reports them after every migration ran, and every view's header comment. `npm run docs` runs it;
 * test/docs-generated.test.ts fails when the page is older than sql/.
 */
import { writeFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { migrate } from '../src/warehouse/migrator.js';
import { MIGRATIONS_DIR, VIEWS_DIR } from '../src/warehouse/paths.js';
import { readNumberedSqlFiles } from '../src/warehouse/sql-files.js';

/** The comment lines right above the last `CREATE TABLE name` of the migrations, joined. */
function tableNotes(): Map<string, string> {
  const notes = new Map<string, string>();
  for (const file of readNumberedSqlFiles(MIGRATIONS_DIR)) {
    const lines = file.text.split('\n');
    lines.forEach((line, index) => {
      const created = /^CREATE TABLE (?:IF NOT EXISTS )?"?([a-z_0-9]+)"?/i.exec(line);
      if (!created) return;
      const comment: string[] = [];
      for (let above = index - 1; above >= 0 && lines[above]!.startsWith('--'); above--) {
        comment.unshift(lines[above]!.replace(/^--\s?/, ''));
      }
      if (comment.length > 0) notes.set(created[1]!, comment.join(' '));
    });
  }
  return notes;
}

/** A view file's header: its leading comment lines, the `Columns:` list kept as lines. */
function viewHeader(text: string): string[] {
  const header: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('--')) break;
    header.push(line.replace(/^--\s?/, ''));
  }
  return header;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

export async function tablesReference(): Promise<string> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await migrate(connection);
    const columns = await connection.runAndReadAll(
      `SELECT table_name, column_name, data_type, is_nullable
       FROM duckdb_columns() WHERE schema_name = 'main' ORDER BY table_name, column_index`,
    );
    const keys = await connection.runAndReadAll(
      `SELECT table_name, constraint_column_names FROM duckdb_constraints()
       WHERE schema_name = 'main' AND constraint_type = 'PRIMARY KEY'`,
    );
    const keyOf = new Map(
      keys
        .getRowObjectsJS()
        .map((row) => [String(row.table_name), (row.constraint_column_names as string[]).join(', ')]),
    );
    const byTable = new Map<string, string[]>();
    for (const row of columns.getRowObjectsJS()) {
      const table = String(row.table_name);
      const nullable = row.is_nullable ? '' : ', not null';
      byTable.set(table, [
        ...(byTable.get(table) ?? []),
        `\`${String(row.column_name)}\` ${String(row.data_type)}${nullable}`,
      ]);
    }
    const notes = tableNotes();
    const lines = [
      '# Tables and views reference',
      '',
      'Every table the migrations create and every view bvsync creates at publish, generated from `sql/`.',
      'Run `npm run docs` after adding a migration or a view; a test fails while this page is older than `sql/`.',
      'For what the tables mean and how to query them, read [Tables](../tables.md).',
      '',
      '## Tables',
      '',
    ];
    for (const [table, tableColumns] of byTable) {
      lines.push(`### \`${table}\``, '');
      if (notes.has(table)) lines.push(notes.get(table)!, '');
      if (keyOf.has(table)) lines.push(`Key: ${keyOf.get(table)}.`, '');
      lines.push('| column |', '|---|', ...tableColumns.map((text) => `| ${cell(text)} |`), '');
    }
    lines.push('## Views', '');
    for (const file of readNumberedSqlFiles(VIEWS_DIR)) {
      const name = file.name.replace(/^\d+_/, '').replace(/\.sql$/, '');
      lines.push(`### \`${name}\``, '', '```text', ...viewHeader(file.text), '```', '');
    }
    return lines.join('\n');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

if (process.argv[1]?.endsWith('tables-reference.ts')) {
  writeFileSync('docs/reference/tables.md', await tablesReference());
  process.stdout.write('wrote docs/reference/tables.md\n');
}
