import { AsyncLocalStorage } from 'node:async_hooks';
import type { ApiRequestEvent } from '../../api/index.js';

/** What the API calls of one slice cost: requests sent, retries among them, and 429 answers. */
export interface Tally {
  requests: number;
  retries: number;
  rateLimited: number;
}

export function emptyTally(): Tally {
  return { requests: 0, retries: 0, rateLimited: 0 };
}

export function addTally(into: Tally, calls: Tally): void {
  into.requests += calls.requests;
  into.retries += calls.retries;
  into.rateLimited += calls.rateLimited;
}

/**
 * One API client serves every fetch job of a process at once; the tally of the job a request belongs to is found
 * through the async context the job runs in, so each slice counts exactly its own calls.
 */
export class RequestTallies {
  private readonly storage = new AsyncLocalStorage<Tally>();
  /** Every request of the process, for the whole-process counters. */
  readonly total: Tally = emptyTally();

  run<T>(tally: Tally, work: () => Promise<T>): Promise<T> {
    return this.storage.run(tally, work);
  }

  readonly onRequest = (event: ApiRequestEvent): void => {
    for (const tally of [this.storage.getStore(), this.total]) {
      if (!tally) continue;
      tally.requests += 1;
      if (event.outcome === 'retry') tally.retries += 1;
      if (event.outcome === 'rate_limited') tally.rateLimited += 1;
    }
  };
}
