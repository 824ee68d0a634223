import { readFileSync } from 'node:fs';
import { text as readAll } from 'node:stream/consumers';
import { Command, Option } from 'commander';
import { StatementType, type DuckDBConnection } from '@duckdb/node-api';
import { workingPathFor } from '../../warehouse/paths.js';
import { withReadOnly } from '../../warehouse/publish/published-database.js';
import { formatResult, RESULT_FORMATS, type ResultFormat } from '../result-format.js';
import { quoteIdent } from '../../warehouse/sql-names.js';
import { statementHeadline, statementTexts } from './statement-texts.js';
import { WarehouseError } from '../../warehouse/warehouse-error.js';
import { CONFIG_OPTION, collect, readConfig } from '../context.js';
import { UsageError } from '../fail.js';
import { errnoOf, errorMessage } from '../../format.js';
import { descriptionOf } from '../commands.js';

export interface SqlFlags {
  db?: string;
  working?: boolean;
  format?: ResultFormat;
  config?: string;
  file?: string;
  param?: string[];
}

/** The database file a read command opens: `--db`, else the config's published file (or its working file). */
export function databasePath(flags: { db?: string; working?: boolean; config?: string }): string {
  const path = flags.db ?? readConfig(flags).db;
  return flags.working ? workingPathFor(path) : path;
}

/**
 * `sql` with one twist of parsing: an inline SQL starting with a comment (`-- Question: ...`) looks like an option to
 * commander, so such an argument (whitespace after its dashes) is moved behind `--`.
 */
class SqlCommand extends Command {
  override parseOptions(args: string[]): { operands: string[]; unknown: string[] } {
    const kept: string[] = [];
    const moved: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      if (arg === '--') {
        kept.push(...args.slice(i));
        break;
      }
      const option = this.options.find((known) => known.long === arg || known.short === arg);
      if (option && (option.required || option.optional) && i + 1 < args.length) kept.push(arg, args[++i]!);
      else if (looksLikeSql(arg)) moved.push(arg);
      else kept.push(arg);
    }
    if (moved.length === 0) return super.parseOptions(args);
    return super.parseOptions(kept.includes('--') ? [...kept, ...moved] : [...kept, '--', ...moved]);
  }
}

function looksLikeSql(arg: string): boolean {
  return /^-+\s/.test(arg) || /^--[^=]*\n/.test(arg);
}

export function sqlCommand(): Command {
  return new SqlCommand('sql')
    .description(descriptionOf('sql'))
    .argument('[query]', 'SQL, e.g. "SELECT * FROM v_share_of_voice_daily LIMIT 10"; - reads it from stdin')
    .option('--file <path>', 'read the SQL from a file, e.g. sql/queries/01_visibility_by_topic_last_28_days.sql')
    .option(
      '--param <name=value>',
      "set a variable the SQL reads with getvariable('name') (repeatable); whole numbers are BIGINT, the rest text",
      collect,
    )
    .option('--db <path>', "DuckDB file to read (default: the config's db, env BVSYNC_DB)")
    .option('--working', 'read the working file instead of the published copy (fails while a writer holds it)')
    .addOption(
      new Option('--format <format>', 'output format (default: table on a terminal, csv otherwise)').choices(
        RESULT_FORMATS,
      ),
    )
    .option(CONFIG_OPTION.flags, CONFIG_OPTION.description)
    .allowExcessArguments()
    .action(async (query: string | undefined, flags: SqlFlags, command: Command) => {
      // Words past the first are a query the shell split: said so, rather than commander's "too many arguments".
      if (command.args.length > 1)
        throw new UsageError(
          `the query reached bvsync as ${command.args.length} words: put it in quotes, as in bvsync sql "select count(*) from conversations"`,
        );
      const format = flags.format ?? (process.stdout.isTTY ? 'table' : 'csv');
      const sql = await readSql(query, flags.file);
      const statements = statementTexts(sql);
      if (statements.length === 0)
        throw new UsageError(`${flags.file ?? 'the query'} holds no SQL statement, only comments or blanks`);
      const params = parseParams(flags.param ?? [], sql);
      await withReadOnly(databasePath(flags), async (database) => {
        await setVariables(database.connection, params);
        await runStatements(database.connection, sql, statements, format);
      });
    });
}

async function readSql(query: string | undefined, file: string | undefined): Promise<string> {
  if (query !== undefined && file !== undefined)
    throw new UsageError('give the SQL once: either as an argument or with --file, not both');
  if (file !== undefined) {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read --file ${file}: ${errnoOf(error) ?? errorMessage(error)}`);
    }
  }
  if (query === '-') return readAll(process.stdin);
  if (query === undefined)
    throw new UsageError(
      'no SQL given: bvsync sql "SELECT ...", bvsync sql --file PATH, or bvsync sql - to read it from stdin',
    );
  return query;
}

interface SqlParam {
  name: string;
  value: bigint | string;
}

/**
 * `--param name=value`, checked: a name the SQL never reads with getvariable('name') is an error, because a typo
 * would otherwise run the query unfiltered and look like an answer.
 */
function parseParams(given: string[], sql: string): SqlParam[] {
  const params = new Map<string, SqlParam>();
  for (const pair of given) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(pair);
    if (!match) throw new UsageError(`--param ${pair}: expected name=value, e.g. --param brand=2`);
    const [, name, raw] = match as unknown as [string, string, string];
    if (!new RegExp(`getvariable\\s*\\(\\s*'${name}'\\s*\\)`, 'i').test(sql)) {
      const read = [...sql.matchAll(/getvariable\s*\(\s*'([^']*)'\s*\)/gi)].map((found) => found[1]);
      throw new UsageError(
        `--param ${name}: the SQL never reads getvariable('${name}')` +
          (read.length
            ? `; it reads ${[...new Set(read)].map((other) => `'${other}'`).join(', ')}`
            : '; it reads no variable'),
      );
    }
    params.set(name, { name, value: /^-?\d{1,18}$/.test(raw) ? BigInt(raw) : raw });
  }
  return [...params.values()];
}

// DuckDB variables live for the connection, so every statement of the script sees them.
async function setVariables(connection: DuckDBConnection, params: SqlParam[]): Promise<void> {
  for (const param of params) {
    const value = typeof param.value === 'bigint' ? 'CAST($1 AS BIGINT)' : '$1';
    await connection.run(`SET VARIABLE ${quoteIdent(param.name)} = ${value}`, [param.value]);
  }
}

// Statements whose result is an answer; the rest (SET, CREATE TEMP ...) run without printing their status row.
const ANSWERING = new Set<StatementType>([
  StatementType.SELECT,
  StatementType.EXPLAIN,
  StatementType.PRAGMA,
  StatementType.CALL,
  StatementType.EXECUTE,
]);

/**
 * Runs each statement in turn and prints every answer: several get a heading each in a table, a blank line between CSV
 * blocks, a JSON array each (as `jq` reads them); a failing statement's error follows the answers before it.
 */
async function runStatements(
  connection: DuckDBConnection,
  sql: string,
  texts: string[],
  format: ResultFormat,
): Promise<void> {
  const extracted = await connection.extractStatements(sql).catch((error: unknown) => {
    throw queryFailed(error);
  });
  const headlines =
    texts.length === extracted.count ? texts.map((statement) => statementHeadline(statement)) : undefined;
  const answers: Array<{ index: number; body: string }> = [];
  let failure: WarehouseError | undefined;
  for (let index = 0; index < extracted.count && !failure; index++) {
    const where = extracted.count > 1 ? ` in statement ${index + 1} of ${extracted.count}` : '';
    try {
      const statement = await extracted.prepare(index);
      const reader = await statement.runAndReadAll();
      if (ANSWERING.has(statement.statementType)) answers.push({ index, body: formatResult(reader, format) });
    } catch (error) {
      failure = queryFailed(error, where);
    }
  }
  answers.forEach(({ index, body }, n) => {
    if (answers.length === 1) process.stdout.write(body);
    else if (format === 'table')
      process.stdout.write(
        `${n > 0 ? '\n' : ''}-- result ${n + 1} of ${answers.length}${headlines ? `: ${headlines[index]}` : ''}\n${body}`,
      );
    else process.stdout.write(`${n > 0 && format === 'csv' ? '\n' : ''}${body}`);
  });
  if (failure) throw failure;
}

function queryFailed(error: unknown, where = ''): WarehouseError {
  const message = errorMessage(error).replace(
    /^Failed to (extract statements|prepare statement|execute prepared statement): /i,
    '',
  );
  return new WarehouseError('query_failed', `query failed${where}: ${message}`);
}
