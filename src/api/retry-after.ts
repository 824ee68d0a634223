/**
 * `Retry-After` is either delta-seconds or an HTTP date (RFC 9110, section 10.2.3). The spec states no rate
 * limits, so bvsync honours whatever the API names, within bounds that keep a broken header from parking a
 * key for a day or from hammering it again at once.
 */

/** The wait used when a 429 carries no usable `Retry-After`. */
export const DEFAULT_RETRY_AFTER_MS = 1_000;
/** The longest wait bvsync accepts from one `Retry-After`; longer values are clamped to this. */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;
/**
 * The shortest: a 429 said the key is over its rate, so `0` or a date already past is not taken as "at once" (a
 * client retrying at once met 20 429s in a row, and a wait of 0 is one Redis refuses to set for the fetch queue).
 */
export const MIN_RETRY_AFTER_MS = 1_000;

// The three date forms of RFC 9110, section 5.6.7: "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT"
// and asctime's "Sun Nov  6 08:49:37 1994". Date.parse alone takes free text such as "Retry later 5" as a date.
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? [\dA-Za-z -]+ \d{2}:\d{2}:\d{2}( GMT| \d{4})$/;

/**
 * Milliseconds to wait according to a `Retry-After` value, or `undefined` when the value is missing or
 * unreadable. Waits are kept within `MIN_RETRY_AFTER_MS` and `MAX_RETRY_AFTER_MS`.
 */
export function parseRetryAfter(value: string | string[] | null | undefined, now: number = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) {
    ms = Math.ceil(Number(text) * 1000);
  } else {
    // Only the HTTP-date forms: a bare number with other characters, or a free-form string, is not a date here.
    if (!HTTP_DATE.test(text)) return undefined;
    // asctime's form names no zone; HTTP dates are GMT, where Date.parse would read the machine's local time.
    const at = Date.parse(text.endsWith('GMT') ? text : `${text} GMT`);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(Math.max(ms, MIN_RETRY_AFTER_MS), MAX_RETRY_AFTER_MS);
}
