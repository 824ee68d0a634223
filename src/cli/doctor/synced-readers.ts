import { STREAMS } from '../../streams/registry.js';
import { DECLARED } from './endpoints.js';
import { syncedStreams, type Config } from '../../configuration.js';

/**
 * The streams this config syncs that read an endpoint of doctor's table. An endpoint no synced stream reads is told of,
 * not failed, so following doctor's advice makes it pass.
 */
export function syncedReaders(config: Config): (endpoint: string) => string[] {
  const synced = syncedStreams(config);
  return (endpoint) => {
    const declared = DECLARED[endpoint];
    if (!declared) return [];
    // By path: a stream may read a listed endpoint through a declaration of its own (cited_page_fanouts, 15).
    const path = declared.path({} as never).join('/');
    return [...STREAMS.values()]
      .filter((stream) => synced.has(stream.name) && stream.endpoint.path({} as never).join('/') === path)
      .map((stream) => stream.name);
  };
}
