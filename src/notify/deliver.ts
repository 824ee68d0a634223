import { setTimeout as sleep } from 'node:timers/promises';
import { errnoOf } from '../format.js';

/** The answer of the last try, or why there was none. */
export type DeliveryOutcome =
  | { delivered: true; attempts: number }
  | { delivered: false; attempts: number; reason: string };

export interface DeliveryOptions {
  /** Gives up when aborted (the notifier's time bound, or a settle that ran out). */
  signal: AbortSignal;
  /** Wait before the second try (ms); it doubles after each, with full jitter. */
  retryBaseMs: number;
  /** Told of each failed try, for the log (never with the URL). */
  onRetry?: (attempt: number, reason: string) => void;
}

/** A 4xx other than 408 and 429 will not change on a retry: the URL or the payload is wrong. */
function retryable(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/**
 * POSTs `body` as JSON until the receiver answers 2xx, a status a retry cannot change, or the signal ends it. Each
 * try is bound by the signal too, so a receiver that never answers costs at most the notifier's bound.
 */
export async function deliver(url: string, body: string, options: DeliveryOptions): Promise<DeliveryOutcome> {
  for (let attempt = 1; ; attempt++) {
    let reason: string;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'bvsync' },
        body,
        signal: options.signal,
        redirect: 'error',
      });
      await response.body?.cancel().catch(() => undefined);
      if (response.ok) return { delivered: true, attempts: attempt };
      reason = `HTTP ${response.status}`;
      if (!retryable(response.status)) return { delivered: false, attempts: attempt, reason: `${reason}, not retried` };
    } catch (error) {
      if (options.signal.aborted) return { delivered: false, attempts: attempt, reason: 'out of time' };
      // The cause's code only (ECONNREFUSED, ENOTFOUND): undici's messages may quote the address.
      reason = errnoOf((error as { cause?: unknown }).cause) ?? 'no answer';
    }
    options.onRetry?.(attempt, reason);
    const wait = Math.random() * options.retryBaseMs * 2 ** (attempt - 1);
    try {
      await sleep(wait, undefined, { signal: options.signal });
    } catch {
      return { delivered: false, attempts: attempt, reason: `out of time after ${reason}` };
    }
  }
}
