import type { Rejection } from '../../api/validate.js';

/**
 * The records of doctor's answers that failed validation, per endpoint: answers whose records all fail seem empty to the
 * parameter verdicts, so doctor says so, with the first issue.
 */
export class ValidationTally {
  private readonly endpoints = new Map<string, { records: number; rejects: number; first: string }>();

  /** Counts an answer a probe got: a page, a report, or an iterator's result holding one; anything else is not one. */
  see(endpoint: string, answer: unknown): void {
    const held = recordsOf(answer);
    if (!held) return;
    const tally = this.endpoints.get(endpoint) ?? { records: 0, rejects: 0, first: '' };
    tally.records += held.records;
    tally.rejects += held.rejects.length;
    if (!tally.first && held.rejects[0]) tally.first = held.rejects[0].issues[0] ?? 'no issue given';
    this.endpoints.set(endpoint, tally);
  }

  /** Endpoints whose answers held records and not one bvsync could read, with how many failed. */
  unreadable(): Array<{ endpoint: string; rejects: number }> {
    return [...this.endpoints]
      .filter(([, tally]) => tally.records === 0 && tally.rejects > 0)
      .map(([endpoint, tally]) => ({ endpoint, rejects: tally.rejects }));
  }

  /**
   * One check line per endpoint whose answers held a record that failed validation: failed when a stream the config
   * syncs reads it (`syncedReaders`), else told of.
   */
  lines(syncedReaders: (endpoint: string) => readonly string[]): Array<{ ok: boolean; line: string }> {
    return [...this.endpoints]
      .filter(([, tally]) => tally.rejects > 0)
      .map(([endpoint, tally]) => {
        const synced = syncedReaders(endpoint);
        const found = `${endpoint}: ${tally.rejects} of ${tally.records + tally.rejects} records in doctor's answers failed validation (the first: ${tally.first})`;
        return synced.length
          ? {
              ok: false,
              line:
                `${found}; a run of ${synced.join(', ')} sets such records aside in _rejected_records and loads only the rest, and ` +
                (tally.records === 0
                  ? "what this endpoint's records seemed to show of its parameters cannot be checked until some can be read"
                  : 'the parameter verdicts of this endpoint judged only the rest'),
            }
          : { ok: true, line: `${found}; no stream synced reads it` };
      });
  }
}

function recordsOf(answer: unknown): { records: number; rejects: readonly Rejection[] } | undefined {
  if (!answer || typeof answer !== 'object') return undefined;
  const result = answer as { done?: unknown; value?: unknown };
  const held = (typeof result.done === 'boolean' ? result.value : answer) as
    | { records?: unknown; rejects?: unknown }
    | undefined;
  if (!held || !Array.isArray(held.records) || !Array.isArray(held.rejects)) return undefined;
  return { records: held.records.length, rejects: held.rejects as Rejection[] };
}
