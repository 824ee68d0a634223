/**
 * The arithmetic of `api.dailyRequestBudget` per `api.requestBudgetWindow`: the config checks a budget with it, and the
 * request quota (src/api/rate/request-quota.ts) counts with it, so both read a window and a share alike.
 */

/** What backfills may spend of a window, rounded down; the nudge keeps 10 × (1 − 0.9) at 1, not 0.999… rounded to 0. */
export function backfillShare(budget: number, reservedForSync: number): number {
  return Math.floor(budget * (1 - reservedForSync) + 1e-9);
}

/** `24h`, `1h`, `30m`, `1d` in ms; undefined when unreadable. */
export function parseBudgetWindow(text: string): number | undefined {
  const match = /^(\d+)(m|h|d)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { m: 60_000, h: 60 * 60_000, d: 24 * 60 * 60_000 }[match[2] as 'm' | 'h' | 'd'];
  const ms = Number(match[1]) * unit;
  return ms > 0 ? ms : undefined;
}
