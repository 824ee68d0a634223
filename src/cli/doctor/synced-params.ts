import type { ApiClient } from '../../api/client.js';
import type { AnyEndpoint } from '../../api/endpoint.js';
import { PAGING_PARAM_NAMES } from '../../api/param-names.js';
import { selectStreams, type ParamName } from '../../streams/registry.js';
import type { Dimensions } from '../../streams/stream.js';
import type { Config } from '../../configuration.js';

/** One of everything a later phase fans out over, so every stream plans a slice to read. */
const ONE_OF_EACH: Dimensions = {
  domains: ['example.com'],
  topicIds: [1],
  pages: ['https://example.com/'],
  engines: ['engine'],
};

/**
 * The query parameters a sync of the configured streams sends, by endpoint name, found by letting each stream read its
 * first slices through a recording client, so it cannot drift from the streams. A wrong name no sync sends fails nothing.
 */
export async function syncedParams(config: Config, days: readonly string[]): Promise<Map<string, Set<ParamName>>> {
  const sent = new Map<string, Set<ParamName>>();
  const recorder = {
    // biome-ignore lint/correctness/useYield: answers nothing, only the query is wanted
    read: async function* (endpoint: AnyEndpoint, _brandId: number, options: object) {
      const names = sent.get(endpoint.name) ?? new Set<ParamName>();
      sent.set(endpoint.name, names);
      for (const [name, value] of Object.entries(endpoint.query(options) as Record<string, unknown>)) {
        if (value !== undefined && !(Array.isArray(value) && value.length === 0)) names.add(name as ParamName);
      }
      // The client adds api.engines to an endpoint that filters by engine when the call names none (client.ts, queryOf).
      if (config.api.engines.length > 0 && (endpoint.params as readonly string[]).includes('engines'))
        names.add('engines');
      if (endpoint.maxPageSize !== undefined) for (const name of PAGING_PARAM_NAMES) names.add(name);
    },
  } as unknown as ApiClient;
  for (const stream of selectStreams(config.sync.streams)) {
    const slices = stream.slices({ brandId: 1, days: [...days], sync: config.sync, dimensions: ONE_OF_EACH });
    // Every slice of two days: a stream's kinds of slice (per day, per window, per value of a filter) are all among them.
    for (const slice of slices) {
      for await (const _page of stream.read({ client: recorder, brandId: 1, slice, sync: config.sync })) {
        // Nothing is answered; the read ends at once.
      }
    }
  }
  return sent;
}
