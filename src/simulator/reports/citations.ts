import type { AnswerFilter, AnswerStore } from '../world/answers.js';
import { DAY_MS, simDayOfMs, simDayString, monthStart, weekStart } from '../sim-days.js';
import { OWNERSHIP_LABELS, type Ownership, type Period } from '../spec-enums.js';
import type { BrandWorld } from '../world/world-types.js';
import { citationMatches, type CitationFilter } from './citation-filter.js';
import { ratio } from './wilson.js';

function periodStart(day: number, period: Period): number {
  return period === 'day' ? day : period === 'week' ? weekStart(day) : monthStart(day);
}

/** The first day of the period `count` periods from the one that `start`, a period's first day, begins. */
function periodFrom(start: number, period: Period, count: number): number {
  return period === 'day' ? start + count : period === 'week' ? start + 7 * count : monthStart(start, count);
}

/**
 * Endpoint 17: a row per period meeting the range, dated its first day, counting citations inside the range, `change`
 * to the previous period (counted in full for the first). With domains, each gets its own rows after the total's.
 */
export function citationsReport(
  store: AnswerStore,
  world: BrandWorld,
  filter: AnswerFilter,
  citationFilter: CitationFilter,
  period: Period,
  domains: string[] | undefined,
) {
  const firstDay = simDayOfMs(filter.startMs);
  const lastDay = simDayOfMs(filter.endMs);
  const starts: number[] = [];
  for (let start = periodStart(firstDay, period); start <= lastDay; start = periodFrom(start, period, 1))
    starts.push(start);
  const before = periodFrom(starts[0]!, period, -1);
  const series = () => new Map<number, number>([[before, 0], ...starts.map((s) => [s, 0] as [number, number])]);
  const all = series();
  const byDomain = new Map((domains ?? []).map((domain) => [domain, series()] as const));
  const byOwnership = new Map<Ownership, number>();
  let occurrences = 0;

  const count = (scope: AnswerFilter, inRange: boolean) => {
    store.forEach(world.brand.id, scope, (answer) => {
      const key = periodStart(answer.day, period);
      for (const citation of answer.citations) {
        if (!citationMatches(citation, citationFilter)) continue;
        all.set(key, (all.get(key) ?? 0) + 1);
        byDomain.get(citation.page.domain)?.set(key, (byDomain.get(citation.page.domain)?.get(key) ?? 0) + 1);
        if (inRange) {
          occurrences++;
          byOwnership.set(citation.page.ownership, (byOwnership.get(citation.page.ownership) ?? 0) + 1);
        }
      }
    });
  };
  count(filter, true);
  count({ ...filter, startMs: before * DAY_MS, endMs: starts[0]! * DAY_MS - 1 }, false);

  const rows: Array<{ date: string; occurrences: number; change: number; domain?: string }> = [];
  const emit = (values: Map<number, number>, domain: string | undefined) => {
    let previous = values.get(before) ?? 0;
    for (const start of starts) {
      const value = values.get(start) ?? 0;
      rows.push({
        date: simDayString(start),
        occurrences: value,
        change: previous === 0 ? 0 : (value - previous) / previous,
        ...(domain ? { domain } : {}),
      });
      previous = value;
    }
  };
  emit(all, undefined);
  for (const [domain, values] of byDomain) emit(values, domain);

  const summary = {
    occurrences,
    by_ownership: [...byOwnership.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([ownership, value]) => ({
        label: OWNERSHIP_LABELS[ownership],
        ownership,
        occurrences: value,
        share: ratio(value, occurrences),
      })),
  };
  return { rows, summary };
}
