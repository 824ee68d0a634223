import { formatDuration } from '../../format.js';
import { LiveLine, type TerminalStream } from '../live-line.js';
import { MAX_PROBE_REQUESTS } from './probe-context.js';

/** Tells the user doctor is still at work while the parameter probes run: some 70 requests, minutes against a slow API. */
export interface ProbeProgress {
  /** Another request of the probes was sent; `count` so far. */
  sent(count: number): void;
  /** The API answered 429 and the probes wait `ms`, as it asked, before the next request. */
  rateLimited(ms: number): void;
  end(): void;
}

/** A wait from which doctor says it waits when its output is no terminal: shorter ones would only flood a log. */
const TOLD_WAIT_MS = 10_000;

/**
 * On a terminal, a line counting the probes' requests, redrawn in place; elsewhere one line when they start, so a slow
 * API never leaves doctor silent.
 */
export function probeProgress(terminal: TerminalStream & { isTTY?: boolean }, brand: number): ProbeProgress {
  const text = (count: number) =>
    `probing the query parameter names on brand ${brand}: ${count} requests (at most ${MAX_PROBE_REQUESTS})`;
  const waiting = (ms: number) => `the API rate limits the key: waiting ${formatDuration(ms / 1000)}, as it asked`;
  if (terminal.isTTY !== true) {
    terminal.write(`probing the query parameter names on brand ${brand} (at most ${MAX_PROBE_REQUESTS} requests)...\n`);
    return {
      sent: () => undefined,
      rateLimited: (ms) =>
        ms >= TOLD_WAIT_MS ? void terminal.write(`${waiting(ms)} (Ctrl-C stops doctor)\n`) : undefined,
      end: () => undefined,
    };
  }
  const line = new LiveLine(terminal);
  let sent = 0;
  line.show(text(0));
  return {
    sent: (count) => line.show(text((sent = count))),
    rateLimited: (ms) => line.show(`${text(sent)}; ${waiting(ms)}`),
    end: () => line.end(),
  };
}
