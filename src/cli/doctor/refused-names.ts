import type { Dispatcher } from 'undici';
import { apiPool } from '../../api/transport.js';
import type { ApiConfig } from '../../config/schema.js';

/**
 * Query parameter names a strict API refused as unknown, per endpoint path. Doctor's requests leave them out from
 * then on, so one refused name does not hide every other parameter of that endpoint until the next run.
 */
export class RefusedNames {
  private readonly byPath = new Map<string, Set<string>>();

  /** Adds names refused on a path (as the client names it, `/customer/v1/brands/1/conversations`); true if any is new. */
  add(path: string, names: readonly string[]): boolean {
    const known = this.byPath.get(path) ?? new Set<string>();
    const before = known.size;
    for (const name of names) known.add(name);
    this.byPath.set(path, known);
    return known.size > before;
  }

  /** The request path (with any base path and query) without the names refused on its endpoint. */
  strip(fullPath: string): string {
    const at = fullPath.indexOf('?');
    if (at < 0) return fullPath;
    const path = fullPath.slice(0, at);
    const refused = [...this.byPath].find(([key]) => path.endsWith(key))?.[1];
    if (!refused?.size) return fullPath;
    const search = new URLSearchParams(fullPath.slice(at + 1));
    for (const name of refused) search.delete(name);
    const rest = search.toString();
    return rest ? `${path}?${rest}` : path;
  }

  /** A connection pool like the client's own, whose requests leave the refused names out. */
  dispatcher(api: ApiConfig & { url: string }): Dispatcher {
    return apiPool(api).compose(
      (dispatch) => (options, handler) => dispatch({ ...options, path: this.strip(options.path) }, handler),
    );
  }
}
