import type { RejectedRecord, Row, TableWrite } from './slice-batch.js';
import { promotedRow, type TablePlan } from './table-plan.js';
import { compileScope, describeScopeMiss } from './scope.js';

/** What screening a slice's writes left for the loader, and what it set aside. */
export interface ScreenedWrites {
  /** The writes with only rows the loader takes: in scope, of the columns' types, one content per key. */
  writes: TableWrite[];
  /** Rows set aside, each with what was wrong (the row as the stream made it is the raw JSON). */
  rejects: RejectedRecord[];
  /** Every kind of problem met, with how many rows and its first description; null when none. */
  problem: string | null;
  /** The first kind met: `out_of_scope`, `row_invalid`, `duplicate_key`. */
  problemCode: string | null;
}

// Columns the loader fills in when a row leaves them empty.
const FILLED_BY_LOADER = new Set(['brand_id', '_synced_at', '_run_id']);

/**
 * Screens a slice's rows before its load, so data never fails a commit: rows out of scope, values their column cannot
 * hold, empty required columns and keys repeated with other content are set aside as rejects with the reason.
 */
export function screenWrites(
  writes: readonly TableWrite[],
  planOf: (table: string) => TablePlan,
  brandId: number,
  source: string,
): ScreenedWrites {
  const rejects: RejectedRecord[] = [];
  const kinds = new Map<string, { count: number; first: string }>();
  const setAside = (table: string, row: Row, code: string, issue: string) => {
    rejects.push({ raw: { table, row }, issues: [issue], source });
    const kind = kinds.get(code);
    if (kind) kind.count += 1;
    else kinds.set(code, { count: 1, first: issue });
  };
  const screened = writes.map((write): TableWrite => {
    if (write.rows.length === 0) return write;
    const plan = planOf(write.table);
    const table = write.table;
    const scope = write.mode === 'replace' ? compileScope(write.scope, brandId) : undefined;
    const valid: Row[] = [];
    for (const row of write.rows) {
      const miss = scope?.check(row);
      if (miss) {
        setAside(table, row, 'out_of_scope', describeScopeMiss(table, miss));
        continue;
      }
      const problem = cellProblem(plan, row);
      if (problem) {
        setAside(table, row, 'row_invalid', problem);
        continue;
      }
      valid.push(row);
    }
    const kept = withoutConflictingKeys(plan, valid, brandId, (row, issue) =>
      setAside(table, row, 'duplicate_key', issue),
    );
    return kept.length === write.rows.length ? write : { ...write, rows: kept };
  });
  const problem = kinds.size
    ? [...kinds.values()]
        .map(({ count, first }) => (count > 1 ? `${first} (and ${count - 1} more rows like it)` : first))
        .join('; ')
    : null;
  return { writes: screened, rejects, problem, problemCode: kinds.keys().next().value ?? null };
}

/** Checks a value the way its column's converter would take it; null for columns that take any value. */
type CellCheck = ((value: unknown) => void) | null;

const checksByPlan = new WeakMap<TablePlan, CellCheck[]>();

// Text and JSON columns take any value and a timestamp only has to parse, so they are not checked: it is the costly part.
function checksOf(plan: TablePlan): CellCheck[] {
  let checks = checksByPlan.get(plan);
  if (!checks) {
    checks = plan.columnTypes.map((type, c): CellCheck => {
      if (type === 'VARCHAR' || type === 'JSON') return null;
      if (type === 'TIMESTAMP WITH TIME ZONE' || type === 'TIMESTAMP') {
        return (value) => {
          const ms =
            value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
          if (Number.isNaN(ms)) plan.converters[c]!(value);
        };
      }
      const convert = plan.converters[c]!;
      // The common case, a number that is an integer of either size, needs no BigInt made to be checked.
      if (type === 'BIGINT' || type === 'HUGEINT')
        return (value) => void (typeof value === 'number' && Number.isSafeInteger(value) ? 0 : convert(value));
      return convert;
    });
    checksByPlan.set(plan, checks);
  }
  return checks;
}

/** The first value of the row its column cannot take, described; undefined when the loader takes every one. */
function cellProblem(plan: TablePlan, stored: Row): string | undefined {
  const { columnNames } = plan;
  const row = promotedRow(stored, plan);
  const checks = checksOf(plan);
  for (let c = 0; c < columnNames.length; c++) {
    const column = columnNames[c]!;
    const value = row[column];
    if (value === undefined || value === null) {
      if (!plan.info.columns[c]!.nullable && !FILLED_BY_LOADER.has(column))
        return `${plan.info.name}.${column}: required, but the row has no value`;
      continue;
    }
    const check = checks[c];
    if (!check) continue;
    try {
      check(value);
    } catch (error) {
      return `${plan.info.name}.${column}: ${(error as Error).message}`;
    }
  }
  return undefined;
}

/**
 * The rows with one content per primary key. A key repeated with the same content is left for the loader (it keeps
 * one); with other content the LAST row is kept, as the loader keeps the last, and the earlier ones are set aside.
 */
function withoutConflictingKeys(
  plan: TablePlan,
  rows: Row[],
  brandId: number,
  setAside: (row: Row, issue: string) => void,
): Row[] {
  const key = plan.info.primaryKey;
  if (key.length === 0 || rows.length < 2) return rows;
  // Once per row of every keyed write: a loop and a concatenation, not an array mapped and joined.
  const keyOf = (row: Row) => {
    let text = '';
    for (let index = 0; index < key.length; index++) {
      const column = key[index]!;
      if (index > 0) text += '\u0000';
      text += String(row[column] ?? (column === 'brand_id' ? brandId : ''));
    }
    return text;
  };
  const last = new Map<string, number>();
  rows.forEach((row, index) => last.set(keyOf(row), index));
  if (last.size === rows.length) return rows;
  const kept: Row[] = [];
  const contents = new Map<number, string>();
  const contentOf = (index: number) => {
    let content = contents.get(index);
    if (content === undefined) contents.set(index, (content = JSON.stringify(rows[index])));
    return content;
  };
  rows.forEach((row, index) => {
    const lastIndex = last.get(keyOf(row))!;
    if (lastIndex === index || contentOf(index) === contentOf(lastIndex)) {
      kept.push(row);
      return;
    }
    const shown = key
      .map((column) => `${column}=${String(row[column] ?? (column === 'brand_id' ? brandId : ''))}`)
      .join(', ');
    setAside(
      row,
      `${plan.info.name}: key (${shown}) came again in this slice with other content; the last row of that key is kept`,
    );
  });
  return kept;
}
