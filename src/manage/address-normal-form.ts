/**
 * An address in the normal form the API compares tracked pages in (endpoint 1: a trailing slash is equal), plus what a
 * URL parser treats as equal (scheme and host case, default port, fragment). `undefined` if not an http(s) address.
 */
export function addressNormalForm(address: string): string | undefined {
  if (!URL.canParse(address.trim())) return undefined;
  const url = new URL(address.trim());
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  url.pathname = url.pathname.replace(/\/+$/, '');
  const text = url.toString();
  // An empty path still prints as "/", the trailing slash the spec folds away.
  return url.pathname === '/' && url.search === '' ? text.replace(/\/$/, '') : text;
}

/** A competitor's name as the API compares it: the case does not matter (spec, endpoint 6). */
export function competitorKey(name: string): string {
  return name.toLowerCase();
}
