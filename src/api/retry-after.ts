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
 * Milliseconds to wait according to a `Retry-After` value, or `undefined` when the value is missing or
 * unreadable. A date in the past gives 0. Values above `MAX_RETRY_AFTER_MS` are clamped.
 */
export function parseRetryAfter(value: string | string[] | null | undefined, now: number = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) {
    ms = Math.ceil(Number(text) * 1000);
  } else {
    // Only the HTTP-date forms: a bare number with other characters, or a free-form string, is not a date here.
    if (!/[A-Za-z]{3}/.test(text)) return undefined;
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - now);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}
