import type { ApiConfig } from '../config/schema.js';
import { PAGING_PARAM_NAMES, endpointMapping, wireName, type ArrayFormat } from './param-names.js';
import type { QueryEncoding, QueryParams } from './query.js';

/**
 * How a read went on the wire where the spec is silent (wire names, array encoding, first page). Recorded per slice
 * (`_sync_state.read_with`) so a later sync can name days read otherwise (src/engine/plan/read-settings-check.ts).
 */
export interface ReadSettings {
  /** bvsync's default name -> the name sent, for every parameter the read sent. */
  names: Record<string, string>;
  arrayFormat?: ArrayFormat;
  firstPage?: 0 | 1;
}

/** The settings of a read of `query` (paging parameters included when `firstPage` is given), as canonical JSON text. */
export function readSettingsOf(query: QueryParams, encoding: QueryEncoding, firstPage?: 0 | 1): string {
  const sent = Object.entries(query).filter(
    ([, value]) => value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0),
  );
  const names = sent.map(([name]) => name);
  if (firstPage !== undefined) names.push(...PAGING_PARAM_NAMES);
  return settingsText({
    names: Object.fromEntries(names.map((name) => [name, wireName(name, encoding.params)])),
    arrayFormat: sent.some(([, value]) => Array.isArray(value)) ? encoding.arrayFormat : undefined,
    firstPage,
  });
}

/**
 * The settings a read recorded as `recorded` would be sent with under `api` now: the same parameters under today's
 * names, encodings and first page. Undefined when the text is not one `readSettingsOf` wrote.
 */
export function readSettingsNow(
  recorded: string,
  api: Pick<ApiConfig, 'params' | 'endpointParams' | 'arrayFormat' | 'firstPage'>,
  endpoint: string,
): string | undefined {
  const settings = parseSettings(recorded);
  if (!settings) return undefined;
  const mapping = endpointMapping(api.params, api.endpointParams, endpoint);
  return settingsText({
    names: Object.fromEntries(Object.keys(settings.names).map((name) => [name, wireName(name, mapping)])),
    arrayFormat: settings.arrayFormat === undefined ? undefined : api.arrayFormat,
    firstPage: settings.firstPage === undefined ? undefined : api.firstPage,
  });
}

/** What differs between two recorded settings, as a reader would say it: `start_date sent as from, now start_date`. */
export function describeSettingsChange(before: string, now: string): string {
  const was = parseSettings(before);
  const is = parseSettings(now);
  if (!was || !is) return `read with ${before}, now ${now}`;
  const changes: string[] = [];
  for (const [name, wire] of Object.entries(was.names)) {
    const current = is.names[name];
    if (current !== undefined && current !== wire) changes.push(`${name} sent as ${wire}, now ${current}`);
  }
  if (was.arrayFormat !== is.arrayFormat)
    changes.push(`arrays sent as ${was.arrayFormat ?? 'none'}, now ${is.arrayFormat ?? 'none'} (api.arrayFormat)`);
  if (was.firstPage !== is.firstPage)
    changes.push(`first page numbered ${was.firstPage ?? 'none'}, now ${is.firstPage ?? 'none'} (api.firstPage)`);
  return changes.join('; ');
}

/** JSON leaves out the settings that are undefined: a read that sent no array records no `arrayFormat`. */
function settingsText(settings: ReadSettings): string {
  // Names sorted, so two reads of the same settings compare equal as text, in SQL as in code.
  const names = Object.fromEntries(Object.entries(settings.names).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return JSON.stringify({ names, arrayFormat: settings.arrayFormat, firstPage: settings.firstPage });
}

function parseSettings(text: string): ReadSettings | undefined {
  try {
    const value = JSON.parse(text) as Partial<ReadSettings>;
    if (typeof value !== 'object' || value === null || typeof value.names !== 'object' || value.names === null)
      return undefined;
    return value as ReadSettings;
  } catch {
    return undefined;
  }
}
