import { describeSettingsChange, readSettingsNow } from '../../api/read-settings.js';
import type { Logger } from '../../log.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { firstPlannedDays, type PlannedPhase } from './plan.js';
import type { Config } from '../../configuration.js';
import { brandStreamId } from '../../slice-ids.js';

/**
 * A sync after the `api` read settings changed re-reads only days after the cursor and lookback, so earlier days stay
 * as read under the old ones. Said once per run, brand and stream, with what changed and the backfill to run.
 */
export async function warnOfDaysReadOtherwise(
  deps: { warehouse: Warehouse; config: Pick<Config, 'api'>; log: Logger },
  { runId, brands, streams, slices, today }: PlannedPhase,
): Promise<void> {
  const byName = new Map(streams.map((stream) => [stream.name, stream]));
  // stream -> a setting its days were read with -> what that read sends today
  const changed = new Map<string, Map<string, string>>();
  for (const { stream, readWith } of await deps.warehouse.readSettingsInUse()) {
    const declared = byName.get(stream);
    if (!declared) continue;
    const now = readSettingsNow(readWith, deps.config.api, declared.endpoint.name);
    if (now === undefined || now === readWith) continue;
    changed.set(stream, (changed.get(stream) ?? new Map<string, string>()).set(readWith, now));
  }
  if (!changed.size) return;
  const firstPlanned = firstPlannedDays(slices);
  for (const brandId of brands) {
    for (const [stream, settings] of changed) {
      const before = firstPlanned.get(brandStreamId(brandId, stream)) ?? today;
      for (const found of await deps.warehouse.daysReadWith(brandId, stream, before, [...settings.keys()])) {
        deps.log.warn(
          {
            run: runId,
            brand: brandId,
            stream,
            days: found.days,
            from: found.first,
            to: found.last,
            readWith: found.readWith,
          },
          `${found.days} complete day(s) of ${stream} for brand ${brandId} (${found.first}..${found.last}) were read with other API settings than this sync's ` +
            `(${describeSettingsChange(found.readWith, settings.get(found.readWith)!)}), and this sync does not read them again; ` +
            `if the API read those requests otherwise, bvsync backfill --brand ${brandId} --streams ${stream} --from ${found.first} --to ${found.last} reads them anew`,
        );
      }
    }
  }
}
