import type { Logger } from '../log.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { firstPlannedDays, needsOf, type PlannedPhase } from './plan.js';
import type { Config } from '../configuration.js';

/**
 * A sync after `api.engines` changed re-reads only the days after the cursor and the lookback: the days before stay as
 * read under the filter of their time, so a week's sums mix two sets of engines, every run complete. Said once per
 * run, brand and stream, with the backfill that reads them under today's filter; the streams that break down by
 * engine send their own filter and are left out. One query for the phase (src/warehouse/other-engines.ts).
 */
export async function warnOfDaysUnderOtherEngines(
  deps: { warehouse: Warehouse; config: Pick<Config, 'api' | 'sync'>; log: Logger },
  { runId, brands, streams, slices, today }: PlannedPhase,
): Promise<void> {
  const engines = deps.config.api.engines;
  const filtered = streams.filter(
    (stream) =>
      (stream.endpoint.params as readonly string[]).includes('engines') &&
      !needsOf(stream, deps.config.sync).includes('engines'),
  );
  const firstPlanned = firstPlannedDays(slices);
  const asked = brands.flatMap((brandId) =>
    filtered.map((stream) => ({
      brandId,
      stream: stream.name,
      before: firstPlanned.get(`${brandId}|${stream.name}`) ?? today,
    })),
  );
  const all = await deps.warehouse.daysOfOtherEngines(asked, engines);
  for (const brandId of brands) {
    for (const stream of filtered) {
      const found = all.get(`${brandId}|${stream.name}`);
      if (!found) continue;
      deps.log.warn(
        { run: runId, brand: brandId, stream: stream.name, days: found.days, from: found.first, to: found.last },
        `${found.days} complete day(s) of ${stream.name} for brand ${brandId} (${found.first}..${found.last}) were read ${found.sent ? `with engines ${found.sent}` : 'without an engines filter'}, ` +
          `where api.engines now sends ${engines.length ? engines.join(',') : 'none'}, and this sync does not read them again; ` +
          `their sums mix with this run's: bvsync backfill --brand ${brandId} --streams ${stream.name} --from ${found.first} --to ${found.last} reads them anew`,
      );
    }
  }
}
