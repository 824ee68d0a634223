import { describe, expect, it } from 'vitest';
import { probeProgress } from '../../src/cli/doctor/probe-progress.js';

/** A stream that keeps what was written, a terminal or not. */
function stream(isTTY: boolean) {
  const written: string[] = [];
  return { written, isTTY, columns: 200, write: (text: string) => written.push(text) > 0 };
}

describe("doctor's probe progress", () => {
  it('counts the requests on a terminal, redrawn in place, and moves below the line at the end', () => {
    const terminal = stream(true);
    const progress = probeProgress(terminal, 7);
    progress.sent(1);
    progress.sent(2);
    progress.end();
    const text = terminal.written.join('');
    expect(text).toContain('probing the query parameter names on brand 7: 2 requests (at most 120)');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('says once that the probes start when the output is no terminal, and nothing per request', () => {
    const log = stream(false);
    const progress = probeProgress(log, 7);
    progress.sent(1);
    progress.end();
    expect(log.written).toEqual(['probing the query parameter names on brand 7 (at most 120 requests)...\n']);
  });
});
