import { DAY_MS, simDayOfMs } from './sim-days.js';

/**
 * The simulator's clock: real time shifted so that "today" is the day asked for at start, plus whatever
 * days tests moved it forward. New days get answers as it moves; idempotent answers expire on it.
 */
export class SimulatorClock {
  private offsetMs: number;

  constructor(today: number | undefined) {
    const realNow = Date.now();
    this.offsetMs = today === undefined ? 0 : (today - simDayOfMs(realNow)) * DAY_MS;
  }

  nowMs(): number {
    return Date.now() + this.offsetMs;
  }

  today(): number {
    return simDayOfMs(this.nowMs());
  }

  advance(days: number): void {
    this.offsetMs += days * DAY_MS;
  }
}
