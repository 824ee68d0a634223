import type { RateBudget } from '../api/index.js';

/** Thrown before a request the bounding budget (`bounding`) has no room for: nothing was sent. */
export class CallBudgetSpent extends Error {
  constructor(readonly limit: number) {
    super(`the call budget of ${limit} requests is spent`);
    this.name = 'CallBudgetSpent';
  }
}

/** A measurement's figures, or undefined when a bounding budget refused one of its requests: nothing was sent. */
export function unlessSpent<T>(measuring: Promise<T>): Promise<T | undefined> {
  return measuring.catch((error: unknown) => {
    if (error instanceof CallBudgetSpent) return undefined;
    throw error;
  });
}

/**
 * Counts the API requests `verify` makes (every attempt) and bounds those spent narrowing a disagreement to days. The
 * whole-window comparison, a request per family and brand plus pages, is not bounded: without it nothing is verified.
 */
export class CallBudget {
  private used = 0;
  /** Attempts let through `bounding`, counted before they are sent (so at least `used`). */
  private claimed = 0;
  private narrowingStart: number | undefined;

  constructor(
    /** Most requests spent narrowing disagreements down to days, over every brand. */
    readonly narrowingLimit: number,
    /** The limit bounds every request, the whole-window comparison's included (`sync.heal.maxCalls`); default false. */
    private readonly boundsAll = false,
  ) {}

  /** Wire to the client's `onRequest`. */
  count(): void {
    this.used += 1;
  }

  startNarrowing(): void {
    this.narrowingStart ??= this.used;
  }

  /** Whether a measurement costing `requests` fits what is left of the narrowing budget, so the limit is never overrun. */
  canSpend(requests = 1): boolean {
    return (this.boundsAll ? Math.max(this.used, this.claimed) : this.narrowing()) + requests <= this.narrowingLimit;
  }

  /**
   * The key's rate budget, refusing with CallBudgetSpent every attempt (retries and 429s included) past the limit
   * before it is sent: no measurement, whatever its pages, goes over it (test/e2e/heal-budget.int.test.ts).
   */
  bounding(rate: RateBudget): RateBudget {
    return {
      acquire: async (signal) => {
        if (this.claimed >= this.narrowingLimit) throw new CallBudgetSpent(this.narrowingLimit);
        this.claimed += 1;
        await rate.acquire(signal);
      },
      blockFor: (ms) => rate.blockFor(ms),
      observe: (answer) => rate.observe(answer),
      close: async () => rate.close?.(),
    };
  }

  total(): number {
    return this.used;
  }

  narrowing(): number {
    return this.narrowingStart === undefined ? 0 : this.used - this.narrowingStart;
  }
}
