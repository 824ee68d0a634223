import { afterEach, describe, expect, it } from 'vitest';
import { LiveLine, type TerminalStream } from '../../src/cli/live-line.js';
import { estimatePhaseTwoSlices } from '../../src/cli/phase-two-estimate.js';
import { progressLine } from '../../src/cli/progress.js';
import { createLogger, routeLogLines } from '../../src/log.js';

/**
 * A fake terminal: keeps what a real one would show, honouring the controls the live line writes (carriage return,
 * "cursor to column 1", "clear line", newline), so a test can assert the screen rather than the escape codes.
 */
class FakeTerminal implements TerminalStream {
  readonly isTTY = true;
  readonly rows: string[] = [''];
  private column = 0;
  constructor(readonly columns = 80) {}

  write(text: string): boolean {
    // eslint-disable-next-line no-control-regex
    for (const token of text.match(/\x1b\[\d*[A-Za-z]|[\s\S]/gu) ?? []) {
      if (token === '\r' || token === '\x1b[1G' || token === '\x1b[G') this.column = 0;
      else if (token === '\x1b[2K') this.rows[this.rows.length - 1] = '';
      else if (token === '\n') {
        this.rows.push('');
        this.column = 0;
      } else if (token.startsWith('\x1b')) throw new Error(`unexpected control ${JSON.stringify(token)}`);
      else {
        const row = [...this.rows.at(-1)!];
        row[this.column] = token;
        this.column += 1;
        this.rows[this.rows.length - 1] = row.join('');
        if (this.column > this.columns) throw new Error('the line wrapped: it can no longer be redrawn in place');
      }
    }
    return true;
  }
}

afterEach(() => routeLogLines(null));

describe('the live progress line on a terminal', () => {
  it('is redrawn in place, with log lines printed above it and never on it', () => {
    const terminal = new FakeTerminal();
    const line = new LiveLine(terminal);
    line.show('█░░ 1/10 slices');
    line.show('██░ 5/10 slices');
    line.printAbove('12:00:01 INFO planned\n');
    line.show('███ 9/10 slices');
    line.printAbove('12:00:02 WARN slow\n12:00:03 INFO done');
    line.end();
    expect(terminal.rows).toEqual(['12:00:01 INFO planned', '12:00:02 WARN slow', '12:00:03 INFO done', '███ 9/10 slices', '']);
  });

  it('is cut to the terminal width, so it never wraps', () => {
    const terminal = new FakeTerminal(20);
    const line = new LiveLine(terminal);
    line.show('x'.repeat(50));
    line.printAbove('log');
    expect(terminal.rows).toEqual(['log', `${'x'.repeat(18)}…`]);
  });

  it('takes every log line while routed: a real logger prints above the line', () => {
    const terminal = new FakeTerminal(200);
    const line = new LiveLine(terminal);
    const log = createLogger({ pretty: true, level: 'info' });
    routeLogLines((text) => line.printAbove(text));
    line.show('██ 2/4 slices');
    log.info({ run: 'r1' }, 'planned');
    // eslint-disable-next-line no-control-regex
    const screen = terminal.rows.map((row) => row.replace(/\x1b\[[\d;]*m/g, ''));
    expect(screen.at(-1)).toBe('██ 2/4 slices');
    expect(screen.slice(0, -1).join('\n')).toMatch(/INFO.*planned[\s\S]*run: "r1"/);
  });
});

describe('the progress line and its ETA', () => {
  const base = { planned: 10, done: 5, rows: 1200, requests: 50, elapsedSeconds: 10 };

  it('is exact once every slice is planned', () => {
    expect(progressLine(base)).toContain('5/10 slices');
    expect(progressLine(base)).toContain('ETA 10 s');
  });

  it('says until when it waits out a rate limit, where a wait of minutes had looked like a stall', () => {
    const now = Date.parse('2026-11-27T10:15:00Z');
    expect(progressLine({ ...base, now, rateLimitedUntil: now + 600_000 })).toMatch(/ · rate limited: waiting until 10:25:00 UTC \(10m 00s\)$/);
    // A wait of a second or two comes and goes between two draws: not said.
    expect(progressLine({ ...base, now, rateLimitedUntil: now + 1_000 })).toBe(progressLine(base));
  });

  it('counts the slices phase 2 will plan, and marks the total and ETA estimated', () => {
    const line = progressLine({ ...base, expectedMore: 20 });
    expect(line).toContain('5/~30 slices');
    // 2 s a slice, 25 slices left.
    expect(line).toContain('ETA ~50 s');
  });

  it('estimates phase 2 per day from an earlier run, else from the guess', () => {
    const previous = { days: 5, planned: new Map([['1|citations', 100]]) };
    const guess = (brandId: number, stream: string) => (stream === 'domain_details' ? 10 * brandId : 7);
    // brand 1: citations from the earlier run (20 a day x 10 days), domain_details guessed (10);
    // brand 2: both guessed (7 + 20).
    expect(estimatePhaseTwoSlices({ brands: [1, 2], phaseTwoStreams: ['citations', 'domain_details'], days: 10, previous, guess })).toBe(200 + 10 + 7 + 20);
    expect(estimatePhaseTwoSlices({ brands: [1], phaseTwoStreams: [], days: 10, previous, guess })).toBe(0);
  });
});
