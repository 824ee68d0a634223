/**
 * The one reader of a header that says when something happens (`Retry-After`, resets, the IETF `reset=` and `t=`):
 * delta seconds, Unix seconds or milliseconds, or an HTTP date, told apart by form and size (header-time.test.ts).
 */

export interface HeaderTime {
  /** Milliseconds from `now` until the instant (negative when it is past). */
  ms: number;
  /**
   * How much later than the real instant the value may read: a value in whole seconds is rounded, most often up to the
   * next second, so a wait of 0.2 s written as a Unix time in seconds can read as 1.2 s. 0 for milliseconds or decimals.
   */
  roundingMs: number;
  form: 'delta-seconds' | 'unix-seconds' | 'unix-milliseconds' | 'http-date';
}

/** Unix times in seconds are above this (September 2001); a smaller number is seconds from now. */
const UNIX_SECONDS_FLOOR = 1e9;
/** Unix times in milliseconds are above this (September 2001 in ms); no wait in seconds comes near it. */
const UNIX_MILLISECONDS_FLOOR = 1e12;

// The three date forms of RFC 9110, section 5.6.7: "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT"
// and asctime's "Sun Nov  6 08:49:37 1994". Date.parse alone takes free text such as "Retry later 5" as a date.
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? [\dA-Za-z -]+ \d{2}:\d{2}:\d{2}( GMT| \d{4})$/;
const NUMBER = /^\d+(\.\d+)?$/;

/** Reads one value; undefined when it is none of the four forms. `now` is the client's clock (ms since the epoch). */
export function readHeaderTime(value: string, now: number): HeaderTime | undefined {
  const text = value.trim();
  if (NUMBER.test(text)) {
    const n = Number(text);
    if (!Number.isFinite(n)) return undefined;
    const whole = !text.includes('.');
    if (n >= UNIX_MILLISECONDS_FLOOR) return { ms: n - now, roundingMs: 0, form: 'unix-milliseconds' };
    if (n >= UNIX_SECONDS_FLOOR) return { ms: n * 1000 - now, roundingMs: whole ? 1000 : 0, form: 'unix-seconds' };
    return { ms: n * 1000, roundingMs: whole ? 1000 : 0, form: 'delta-seconds' };
  }
  // Only the HTTP-date forms: a number with other characters, or free text, is not a date here.
  if (!HTTP_DATE.test(text)) return undefined;
  // asctime's form names no zone; HTTP dates are GMT, where Date.parse would read the machine's local time.
  const at = Date.parse(text.endsWith('GMT') ? text : `${text} GMT`);
  if (Number.isNaN(at)) return undefined;
  return { ms: at - now, roundingMs: 1000, form: 'http-date' };
}
