import { describe, expect, it } from 'vitest';
import type { EndpointReads } from '../../src/cli/endpoint-reads.js';
import { ProbeContext, probeWindows } from '../../src/cli/doctor/probe-context.js';
import { judgeEcho } from '../../src/cli/doctor/probes/echo.js';
import { VerdictBook } from '../../src/cli/doctor/verdicts.js';
import { parseConfig } from '../../src/configuration.js';

const ENDPOINT = 'reports/visibility/topics (16)';

/** The verdict and reason doctor gives a range sent as 2026-11-19..2026-11-25 and echoed as `start` and `end`. */
function judge(start: string, end: string): Record<string, string> {
  const book = new VerdictBook({});
  const ctx = new ProbeContext({} as EndpointReads, 1, book, probeWindows('2026-11-25'), parseConfig({}));
  judgeEcho(
    ctx,
    ENDPOINT,
    [
      { name: 'start_date', value: '2026-11-19' },
      { name: 'end_date', value: '2026-11-25' },
    ],
    { start_date: start, end_date: end },
  );
  return Object.fromEntries(book.list().map((row) => [row.param, `${row.verdict}: ${row.why}`]));
}

describe("doctor's reading of a range echoed with times", () => {
  it('takes the UTC day sent, however it is written: a zone named or not, a space, to the second or the minute, or a half-open end', () => {
    for (const [start, end] of [
      ['2026-11-19T00:00:00Z', '2026-11-25T23:59:59Z'],
      ['2026-11-19T00:00:00', '2026-11-25T23:59:59.999'],
      ['2026-11-19 00:00:00+00:00', '2026-11-25 23:59:00+0000'],
      ['2026-11-19T00:00:00.000Z', '2026-11-26T00:00:00Z'],
      ['2026-11-19T00:00:00Z', '2026-11-26 00:00:00'],
    ]) {
      const verdicts = judge(start!, end!);
      expect(verdicts.start_date, start).toMatch(/^verified/);
      expect(verdicts.end_date, end).toMatch(/^verified/);
    }
  });

  it("calls another zone's day wrong, and an end at its own midnight not checkable", () => {
    const zoned = judge('2026-11-19T00:00:00-05:00', '2026-11-25T23:59:59-05:00');
    expect(zoned.start_date).toMatch(/^wrong: .*, 5 h after the UTC day's start: the API's days are not UTC days/);
    expect(zoned.end_date).toMatch(/^wrong: .*, 5 h after the UTC day's end/);
    expect(judge('2026-11-19T00:00:00+01:00', '2026-11-25T23:59:59+01:00').end_date).toMatch(
      /^wrong: .*1 h before the UTC day's end/,
    );
    expect(judge('2026-11-19', '2026-11-25T00:00:00Z').end_date).toMatch(
      /^cannot be checked: .*the day's first instant/,
    );
  });
});
