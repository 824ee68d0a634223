import { z } from 'zod';
import { DAY_MS, DAY_PATTERN } from '../sim-days.js';

/**
 * Schema-valid oddities: a record outside the range asked, a repeated id, a page numbered otherwise, a `total_rows`
 * that moves, counts only its page, or is missing. Each is added the same way on every fetch, so a test can predict it.
 */
const ODDITY_KINDS = [
  'row_outside_window',
  'duplicate_key',
  'wrong_page',
  'moving_total',
  'page_total',
  'no_total',
] as const;
type OddityKind = (typeof ODDITY_KINDS)[number];
export const oddityKindSchema = z.enum(ODDITY_KINDS);

/** Days a record `row_outside_window` adds is moved past its original's date. */
const OUTSIDE_WINDOW_DAYS = 10;
/** Added to the id of the record `row_outside_window` adds, so it is a record of its own, not a duplicate. */
const OUTSIDE_WINDOW_ID_OFFSET = 1_000_000_000;

const ID_FIELDS = ['id', 'conversation_id', 'topic_id'] as const;

interface ListAnswer {
  data: unknown[];
  info?: Record<string, unknown>;
}

function shiftDate(value: string, days: number): string | undefined {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  const shifted = new Date(ms + days * DAY_MS).toISOString();
  return DAY_PATTERN.test(value) ? shifted.slice(0, 10) : shifted;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The record with one of its own numbers changed (or a field added), its ids left as they are. */
function otherContent(record: Record<string, unknown>): Record<string, unknown> {
  const field = Object.keys(record).find(
    (key) => typeof record[key] === 'number' && !key.endsWith('id') && key !== 'id',
  );
  return field
    ? { ...record, [field]: (record[field] as number) + 1 }
    : { ...record, x_duplicate_of_other_content: true };
}

/** The list answer with the oddities asked for; records are added on the first page only. */
export function applyOddities(answer: ListAnswer, kinds: readonly OddityKind[]): ListAnswer {
  if (kinds.length === 0) return answer;
  const data = [...answer.data];
  const info = answer.info ? { ...answer.info } : undefined;
  const page = typeof info?.page === 'number' ? info.page : 1;
  const hasTotal = typeof info?.total_rows === 'number';
  if (page === 1 && kinds.includes('row_outside_window')) {
    const dated = data.find(
      (record): record is Record<string, unknown> => isRecord(record) && typeof record.date === 'string',
    );
    const date = dated ? shiftDate(dated.date as string, OUTSIDE_WINDOW_DAYS) : undefined;
    if (dated && date) {
      const outside: Record<string, unknown> = { ...dated, date };
      for (const field of ID_FIELDS)
        if (typeof outside[field] === 'number') outside[field] = (outside[field] as number) + OUTSIDE_WINDOW_ID_OFFSET;
      data.push(outside);
      if (hasTotal) info!.total_rows = (info!.total_rows as number) + 1;
    }
  }
  if (page === 1 && kinds.includes('duplicate_key')) {
    const keyed = data.find(
      (record): record is Record<string, unknown> =>
        isRecord(record) && ID_FIELDS.some((field) => typeof record[field] === 'number'),
    );
    if (keyed) data.push(otherContent(keyed));
  }
  if (info && typeof info.page === 'number') {
    if (kinds.includes('wrong_page') && page >= 2) info.page = page + 1;
    if (kinds.includes('moving_total') && hasTotal) info.total_rows = (info.total_rows as number) + page;
  }
  if (info && hasTotal && kinds.includes('page_total')) info.total_rows = data.length;
  if (info && kinds.includes('no_total')) delete info.total_rows;
  return info ? { ...answer, data, info } : { ...answer, data };
}
