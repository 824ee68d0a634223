import { z } from 'zod';

/**
 * How list reads answer pages after the first (`laterPages`): JSON, or what bvsync cannot read, as a proxy or paging
 * bug may give: a 200 HTML login form (`html`), JSON cut short under a full Content-Length (`cut_json`), `data: null`.
 */
const LATER_PAGES = ['json', 'html', 'cut_json', 'null_data'] as const;
export const laterPagesSchema = z.enum(LATER_PAGES);
type LaterPages = (typeof LATER_PAGES)[number];

const PROXY_PAGE = '<html><body><form action="/login">Proxy login</form></body></html>';

/** Whether a read's answer is a page after the first, by its `info.page`. */
export function isLaterPage(body: unknown, firstPage: number): boolean {
  const page = (body as { info?: { page?: unknown } } | undefined)?.info?.page;
  return typeof page === 'number' && page > firstPage;
}

/** The answer of a page after the first as `kind` says, from its JSON text. */
export function laterPage(
  kind: Exclude<LaterPages, 'json'>,
  json: string,
): { body: string; headers: Record<string, string> } {
  if (kind === 'html') return { body: PROXY_PAGE, headers: { 'content-type': 'text/html; charset=utf-8' } };
  if (kind === 'cut_json') return { body: json.slice(0, Math.floor(json.length / 2)), headers: {} };
  return { body: JSON.stringify({ ...(JSON.parse(json) as object), data: null }), headers: {} };
}
