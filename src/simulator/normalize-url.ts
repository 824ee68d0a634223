/** A URL as the API compares it (spec, tracked URLs): http(s) only, no fragment, no trailing slash without a query. */
export function normalizeUrl(raw: string): string | undefined {
  if (!URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  let text = url.toString();
  if (url.search === '' && text.endsWith('/')) text = text.slice(0, -1);
  return text;
}
