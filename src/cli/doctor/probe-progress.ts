import { LiveLine, type TerminalStream } from '../live-line.js';
import { MAX_PROBE_REQUESTS } from './probe-context.js';

/** Tells the user doctor is still at work while the parameter probes run: some 70 requests, minutes against a slow API. */
export interface ProbeProgress {
  /** Another request of the probes was sent; `count` so far. */
  sent(count: number): void;
  end(): void;
}

/**
 * On a terminal, a line counting the probes' requests, redrawn in place; elsewhere one line when they start, so a slow
 * API never leaves doctor silent.
 */
export function probeProgress(terminal: TerminalStream & { isTTY?: boolean }, brand: number): ProbeProgress {
  const text = (count: number) =>
    `probing the query parameter names on brand ${brand}: ${count} requests (at most ${MAX_PROBE_REQUESTS})`;
  if (terminal.isTTY !== true) {
    terminal.write(`probing the query parameter names on brand ${brand} (at most ${MAX_PROBE_REQUESTS} requests)...\n`);
    return { sent: () => undefined, end: () => undefined };
  }
  const line = new LiveLine(terminal);
  line.show(text(0));
  return {
    sent: (count) => line.show(text(count)),
    end: () => line.end(),
  };
}
