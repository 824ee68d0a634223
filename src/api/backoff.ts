export interface BackoffOptions {
  /** The cap of the first wait (`api.retryBaseMs`, default 250). */
  baseMs: number;
  /** No wait is longer than this (`api.retryMaxMs`, default 20000). */
  maxMs: number;
}

/**
 * The wait before retry number `attempt` (1 = the first retry): exponential backoff with full jitter, a
 * uniform draw in [0, min(max, base * 2^(attempt-1))], so many failing workers do not retry in step.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const cap = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * cap);
}
