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

  it('says on the line how long a 429 makes the probes wait, and the count again at the next request', () => {
    const terminal = stream(true);
    const progress = probeProgress(terminal, 7);
    progress.sent(3);
    progress.rateLimited(600_000);
    expect(terminal.written.at(-1)).toBe(
      'probing the query parameter names on brand 7: 3 requests (at most 120); the API rate limits the key: waiting 10m 00s, as it asked',
    );
    progress.sent(4);
    expect(terminal.written.at(-1)).toBe('probing the query parameter names on brand 7: 4 requests (at most 120)');
  });

  it('prints a line for a wait of 10 s or more when the output is no terminal, and none for a shorter one', () => {
    const log = stream(false);
    const progress = probeProgress(log, 7);
    progress.rateLimited(2_000);
    progress.rateLimited(90_000);
    expect(log.written.slice(1)).toEqual([
      'the API rate limits the key: waiting 1m 30s, as it asked (Ctrl-C stops doctor)\n',
    ]);
  });
});
