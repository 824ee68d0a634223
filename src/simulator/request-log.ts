/** One request as the simulator saw it; the sync's tests count calls with these. */
export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  status: number;
  /** ISO time the request arrived (real clock). */
  time: string;
  durationMs: number;
  /** The fault injected, if any. */
  fault?: string;
  /** Items a write (POST, PATCH) wrote: a bulk write's info.written, 1 for another write answered 2xx, 0 for a dry run, a replayed answer or an error. */
  written?: number;
  /** The idempotency value a write (POST, PATCH) carried, under the simulator's idempotency header. */
  idempotencyKey?: string;
}

/** The most entries kept; the oldest go first. Enough for any test, bounded for a long-running demo. */
const MAX_ENTRIES = 200_000;

export class RequestLog {
  private entries: LoggedRequest[] = [];

  add(entry: LoggedRequest): void {
    this.entries.push(entry);
    if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
  }

  all(): LoggedRequest[] {
    return this.entries.slice();
  }

  clear(): void {
    this.entries = [];
  }
}

export function queryObject(search: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(search.keys())) {
    const values = search.getAll(key);
    out[key] = values.length === 1 ? values[0]! : values;
  }
  return out;
}
