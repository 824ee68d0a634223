import { addDays, eachDay } from '../../days.js';
import type { Logger } from '../../log.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { firstIncrementalDay, firstPlannedDays, needsOf, type PlannedPhase } from './plan.js';
import type { DescribeBackfill, SkipCompleteBackfill } from './skip-complete-backfill.js';
import type { Config } from '../../configuration.js';
import { brandStreamId } from '../../slice-ids.js';
import { groupBy } from '../../group-by.js';

/** Series named in a warning; the rest are counted. */
const NAMED_SERIES = 5;

/** A brand's stream with days before the sync's first day that no run read, and the backfill that reads only those. */
interface DaysNeverRead {
  brandId: number;
  stream: string;
  /** Day slices never read, of `expected` per series. */
  missing: number;
  expected: number;
  /** The series lacking days, most lacking first (`''` alone: the stream has one series); and how many it has. */
  lacking: string[];
  series: number;
  /** From the sync's first day to the day before the stream's first planned one, of this brand and stream. */
  backfill: SkipCompleteBackfill;
}

/**
 * A sync reads only days after a stream's cursor and lookback, so a series added since (a new domain) or an earlier
 * `sync.startDate` leaves earlier days unread. One query for the phase (test/e2e/unread-days.int.test.ts).
 */
async function daysNeverRead(
  deps: { warehouse: Warehouse; config: Pick<Config, 'sync'> },
  { streams, slices, today }: PlannedPhase,
): Promise<DaysNeverRead[]> {
  const first = firstIncrementalDay(today, deps.config.sync);
  const firstPlanned = firstPlannedDays(slices);
  // Topics and engines have no days before the API had them, and an added one cannot be told from one learned late, so
  // only domains are checked: a domain's citations are older than bvsync's interest in it.
  const checked = new Set(
    streams
      .filter((stream) => !needsOf(stream, deps.config.sync).some((need) => need === 'topicIds' || need === 'engines'))
      .map((stream) => stream.name),
  );
  // brand|stream -> the stream's series, each planned from the stream's first planned day
  const seriesOf = new Map<string, { brandId: number; name: string; before: string; series: Set<string> }>();
  const daySlices = slices.filter((slice) => slice.day !== null && slice.key.endsWith(slice.day));
  for (const [stream, ofStream] of groupBy(daySlices, (slice) => brandStreamId(slice.brandId, slice.stream))) {
    const { brandId, stream: name } = ofStream[0]!;
    const before = firstPlanned.get(stream) ?? first;
    if (!checked.has(name) || before <= first) continue;
    const series = new Set(ofStream.map((slice) => slice.key.slice(0, -slice.day!.length)));
    seriesOf.set(stream, { brandId, name, before, series });
  }
  const asked = [...seriesOf.values()].flatMap(({ brandId, name, before, series }) =>
    [...series].map((each) => ({ brandId, stream: name, series: each, first, before })),
  );
  if (!asked.length) return [];
  const read = await deps.warehouse.seriesReadDays(asked);
  const found: DaysNeverRead[] = [];
  for (const [stream, { brandId, name, before, series }] of seriesOf) {
    const last = addDays(before, -1);
    const expected = eachDay(first, last).length;
    const lacking = [...series]
      .map((each) => ({ series: each, missing: expected - (read.get(`${stream}|${each}`) ?? 0) }))
      .filter((each) => each.missing > 0)
      .sort((a, b) => b.missing - a.missing || a.series.localeCompare(b.series));
    if (!lacking.length) continue;
    const missing = lacking.reduce((sum, each) => sum + each.missing, 0);
    found.push({
      brandId,
      stream: name,
      missing,
      expected,
      lacking: lacking.map((each) => each.series),
      series: series.size,
      backfill: { from: first, to: last, brands: [brandId], streams: [name], slices: missing },
    });
  }
  return found;
}

/**
 * Says each of `daysNeverRead` once per run, brand and stream, with the backfill that reads only those: as a command
 * when the process was given `describeBackfill` (the CLI's), else by its fields alone.
 */
export async function warnOfDaysNeverRead(
  deps: { warehouse: Warehouse; config: Pick<Config, 'sync'>; log: Logger; describeBackfill?: DescribeBackfill },
  planned: PlannedPhase,
): Promise<void> {
  for (const { brandId, stream, missing, expected, lacking, series, backfill } of await daysNeverRead(deps, planned)) {
    const { from, to } = backfill;
    const which =
      series === 1 && lacking[0] === ''
        ? `${missing} of its ${expected} day(s) from ${from} to ${to} were`
        : `${missing} day slice(s) from ${from} to ${to}, of ${lacking.length} of its ${series} series (${describeSeries(lacking)}), were`;
    const reader = deps.describeBackfill ? deps.describeBackfill(backfill) : 'a backfill --skip-complete of those days';
    deps.log.warn(
      { run: planned.runId, brand: brandId, stream, missing, from, to },
      `${stream} for brand ${brandId}: ${which} never read, and this sync reads only the days after its cursor and the lookback ` +
        `(a domain added since, or sync.startDate moved earlier); ${reader} reads only those`,
    );
  }
}

/** `example.com, second.example and 4 more`: a series by what its keys hold before the day. */
function describeSeries(series: string[]): string {
  const names = series.map((each) => each.replace(/\/$/, '') || 'its days');
  const named = names.slice(0, NAMED_SERIES).join(', ');
  return names.length > NAMED_SERIES ? `${named} and ${names.length - NAMED_SERIES} more` : named;
}
