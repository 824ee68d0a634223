import type { Logger } from '../../log.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { firstPlannedDays, needsOf, type PlannedPhase } from './plan.js';
import type { Config } from '../../configuration.js';
import { brandStreamId } from '../../slice-ids.js';

/**
 * A sync after `api.engines` changed re-reads only days after the cursor and lookback, so earlier days keep the old
 * filter. Said once per run, brand and stream, with the backfill; streams with their own engine filter are left out.
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
      before: firstPlanned.get(brandStreamId(brandId, stream.name)) ?? today,
    })),
  );
  const all = await deps.warehouse.daysOfOtherEngines(asked, engines);
  for (const { brandId, stream } of asked) {
    const found = all.get(brandStreamId(brandId, stream));
    if (!found) continue;
    deps.log.warn(
      { run: runId, brand: brandId, stream, days: found.days, from: found.first, to: found.last },
      `${found.days} complete day(s) of ${stream} for brand ${brandId} (${found.first}..${found.last}) were read ${found.sent ? `with engines ${found.sent}` : 'without an engines filter'}, ` +
        `where api.engines now sends ${engines.length ? engines.join(',') : 'none'}, and this sync does not read them again; ` +
        `their sums mix with this run's: bvsync backfill --brand ${brandId} --streams ${stream} --from ${found.first} --to ${found.last} reads them anew`,
    );
  }
}
