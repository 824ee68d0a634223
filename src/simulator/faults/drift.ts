import type { Knobs } from '../knobs.js';
import { hashKeys, hashString, unitFor } from '../world/random.js';

type DriftSettings = Pick<Knobs, 'extraFieldShare' | 'unknownEnumShare' | 'invalidShare'> & { seed: number };

const EXTRA_KEY = hashString('drift-extra');
const ENUM_KEY = hashString('drift-enum');
const INVALID_KEY = hashString('drift-invalid');

/** Enum-like fields and a value the spec does not list for each, tried in this order. */
const UNLISTED_VALUES: Array<[string, string]> = [
  ['model', 'engine_preview_unlisted'],
  ['ownership', 'unlisted_ownership'],
  ['type', 'playbook'],
  ['status', 'scheduled_unlisted'],
  ['kind', 'video_unlisted'],
  ['generation_status', 'paused_unlisted'],
];

function identity(record: Record<string, unknown>, index: number, routeKey: number): number {
  const id = record.id ?? record.conversation_id;
  return typeof id === 'number' ? hashKeys(routeKey, id) : hashKeys(routeKey, index, 7);
}

/**
 * Drift on a list answer's records: unknown extra fields, unlisted enum values and invalid records. Which records drift
 * depends on seed, route and id alone, so a record drifts the same way on every fetch (a test can predict it).
 */
export function applyDrift(records: unknown[], routeName: string, settings: DriftSettings): unknown[] {
  const routeKey = hashString(routeName);
  return records.map((value, index) => {
    if (value === null || typeof value !== 'object') return value;
    let record = value as Record<string, unknown>;
    const key = identity(record, index, routeKey);
    if (unitFor(settings.seed, EXTRA_KEY, key) < settings.extraFieldShare) {
      record = {
        ...record,
        x_unlisted_field: { note: 'a field the spec does not list', since: '2099-01-01' },
        x_score: 0.5,
      };
    }
    if (unitFor(settings.seed, ENUM_KEY, key) < settings.unknownEnumShare) {
      const field = UNLISTED_VALUES.find(([name]) => typeof record[name] === 'string');
      if (field) record = { ...record, [field[0]]: field[1] };
    }
    if (unitFor(settings.seed, INVALID_KEY, key) < settings.invalidShare) {
      record = { ...record };
      const variant = hashKeys(key, 3) % 3;
      const idField = 'id' in record ? 'id' : 'conversation_id' in record ? 'conversation_id' : undefined;
      const dateField = 'date' in record ? 'date' : 'created_at' in record ? 'created_at' : undefined;
      if (variant === 0 && idField) record[idField] = `not-an-integer-${String(record[idField])}`;
      else if (variant === 1 && dateField) record[dateField] = 'not-a-date';
      else if (idField) delete record[idField];
      else record.__invalid = true;
    }
    return record;
  });
}

/**
 * Drift on a citations answer's `info.summary.by_ownership`: one entry, drawn as list records are, takes an ownership
 * value the spec does not list (one only, so the window's entries keep distinct values, as the API's would).
 */
export function applyInfoDrift(
  info: Record<string, unknown> | undefined,
  routeName: string,
  settings: DriftSettings,
): Record<string, unknown> | undefined {
  const summary = info?.summary as { by_ownership?: unknown } | undefined;
  if (settings.unknownEnumShare <= 0 || !summary || !Array.isArray(summary.by_ownership)) return info;
  const routeKey = hashString(`${routeName}:by_ownership`);
  const entries = summary.by_ownership as unknown[];
  const drifted = entries.findIndex(
    (entry, index) =>
      entry !== null &&
      typeof entry === 'object' &&
      unitFor(settings.seed, ENUM_KEY, hashKeys(routeKey, index, 7)) < settings.unknownEnumShare,
  );
  if (drifted === -1) return info;
  const byOwnership = entries.map((entry, index) =>
    index === drifted ? { ...(entry as object), ownership: 'unlisted_ownership' } : entry,
  );
  return { ...info, summary: { ...summary, by_ownership: byOwnership } };
}
