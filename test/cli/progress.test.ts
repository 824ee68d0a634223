import { afterEach, describe, expect, it } from 'vitest';
import { LiveLine, type TerminalStream } from '../../src/cli/live-line.js';
import { progressLine } from '../../src/cli/run/progress.js';
import { summaryTable } from '../../src/cli/run/run-report.js';
import type { StreamCounters } from '../../src/engine/run/run-store.js';
import type { RunProgress } from '../../src/engine/run/start-run.js';
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
    expect(terminal.rows).toEqual([
      '12:00:01 INFO planned',
      '12:00:02 WARN slow',
      '12:00:03 INFO done',
      '███ 9/10 slices',
      '',
    ]);
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
    expect(progressLine({ ...base, now, rateLimitedUntil: now + 600_000 })).toMatch(
      / · rate limited: waiting until 10:25:00 UTC \(10m 00s\)$/,
    );
    // A wait of a second or two comes and goes between two draws: not said.
    expect(progressLine({ ...base, now, rateLimitedUntil: now + 1_000 })).toBe(progressLine(base));
  });

  it('shows the step in progress when the run has several, so the total never jumps as a later step is planned', () => {
    const step = { number: 1, of: 2, planned: 0, done: 0, elapsedSeconds: 0, doneAtStart: 0 };
    expect(progressLine({ ...base, step })).toMatch(/^step 1 of 2 ░+ planning · /);
    // Step 1: 141 slices planned, 100 done in 20 s: 41 left at 0.2 s each.
    const first = progressLine({ ...base, step: { ...step, planned: 141, done: 100, elapsedSeconds: 20 } });
    expect(first).toMatch(/^step 1 of 2 █+░+ 100\/141 slices · .* ETA of the step 8 s$/);
    // Step 2 has its own total and its own pace, measured from when it started (10 of 2,076 done in 5 s).
    const second = progressLine({
      ...base,
      planned: 2217,
      done: 151,
      step: { number: 2, of: 2, planned: 2076, done: 10, elapsedSeconds: 5, doneAtStart: 0 },
    });
    expect(second).toContain('step 2 of 2 ');
    expect(second).toContain(' 10/2,076 slices ');
    expect(second).toContain('ETA of the step 17m 13s');
    // One step: the line of old.
    expect(progressLine({ ...base, step: { ...step, of: 1, planned: 10, done: 5 } })).toBe(progressLine(base));
  });
});

describe('the table a run ends with (run-report.ts)', () => {
  const counters = (over: Partial<StreamCounters>): StreamCounters => ({
    planned: 2,
    done: 2,
    failed: 0,
    incomplete: 0,
    rows: 0,
    rejects: 0,
    requests: 0,
    retries: 0,
    rateLimited: 0,
    ...over,
  });

  it('has a row per brand and stream, brands in number order, and says what each stream still lacks', () => {
    const progress = {
      counters: new Map([
        ['10|conversations', counters({ rows: 12_345, requests: 7 })],
        ['2|visibility', counters({ failed: 1, retries: 3, rateLimited: 2 })],
        ['2|citations', counters({ incomplete: 1, rejects: 4 })],
        ['2|articles', counters({ done: 1 })],
      ]),
    } as RunProgress;
    const lines = summaryTable(progress).split('\n');
    const row = (text: string) =>
      lines
        .find((line) => line.includes(text))!
        .split('│')
        .map((cell) => cell.trim());
    expect(lines.findIndex((line) => line.includes('articles'))).toBeLessThan(
      lines.findIndex((line) => line.includes('conversations')),
    );
    expect(row('conversations')).toEqual(['', '10', 'conversations', '2/2', '12,345', '0', '7', '0', '0', 'ok', '']);
    expect(row('visibility').slice(-4)).toEqual(['3', '2', '1 failed', '']);
    expect(row('citations')[5]).toBe('4');
    expect(row('citations').at(-2)).toBe('1 incomplete');
    expect(row('articles')[3]).toBe('1/2');
    expect(row('articles').at(-2)).toBe('1 pending');
  });
});
