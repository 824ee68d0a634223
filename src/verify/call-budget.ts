/**
 * Counts the API requests `verify` makes (every HTTP attempt, retries included, as the client reports them) and
 * bounds the ones spent narrowing a disagreement down to days. The whole-window comparison is not bounded: it is
 * one request per figure family and brand, plus pages, and without it there is nothing to verify.
 */
export class CallBudget {
  private used = 0;
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

  /**
   * Whether a measurement that costs `requests` fits what is left of the narrowing budget: a half measured on one
   * request left had cost its family's pages and engines, and the limit was overrun (102 of 100).
   */
  canSpend(requests = 1): boolean {
    return (this.boundsAll ? this.used : this.narrowing()) + requests <= this.narrowingLimit;
  }

  total(): number {
    return this.used;
  }

  narrowing(): number {
    return this.narrowingStart === undefined ? 0 : this.used - this.narrowingStart;
  }
}
