import { DAY_MS, simDayOfMs } from './sim-days.js';

/**
 * The simulator's clock: real time shifted so that "today" is the day asked for at start, plus whatever
 * days tests moved it forward. New days get answers as it moves; idempotent answers expire on it.
 */
export class SimulatorClock {
  private offsetMs: number;

  /** `base`: the time it shifts, default the real one; a test passes a clock it moves itself (and bvsync reads too). */
  constructor(
    today: number | undefined,
    private readonly base: () => number = Date.now,
  ) {
    this.offsetMs = today === undefined ? 0 : (today - simDayOfMs(base())) * DAY_MS;
  }

  nowMs(): number {
    return this.base() + this.offsetMs;
  }

  today(): number {
    return simDayOfMs(this.nowMs());
  }

  advance(days: number): void {
    this.offsetMs += days * DAY_MS;
  }
}
