import { groupBy } from '../group-by.js';
import { addressNormalForm, competitorKey } from './address-normal-form.js';

/*
 * Reading a bulk write's answer item by item: which entry of `data[]` is which item sent, and whether the entries
 * contradict the rejection positions (src/manage/apply-plan.ts).
 */

/** A tracked page as the API compares addresses, so an address it answers normalised still matches the one sent. */
export function addressKey(url: string): string {
  return addressNormalForm(url) ?? url.trim();
}

/** A competitor's name as the API compares it (spec, endpoint 6: the case does not matter). */
export function competitorNameKey(name: string): string {
  return competitorKey(name.trim());
}

/** A topic's name: the spec says topics are told apart by name, type and language, and nothing of letter case. */
export function topicNameKey(name: string): string {
  return name.trim();
}

/**
 * Why the items `data[]` lists contradict the rejection positions, or undefined when they do not: an item listed as
 * written that the positions read as rejected, which counts alone cannot show (positions counted from 1).
 */
export function misplaced(
  writtenKeys: string[],
  sentKeys: string[],
  rejected: ReadonlyMap<number, unknown>,
): string | undefined {
  const listed = new Set(writtenKeys);
  const contradicted = sentKeys.flatMap((key, index) =>
    rejected.has(index) && listed.has(key) && !sentKeys.some((other, at) => at !== index && other === key)
      ? [index]
      : [],
  );
  if (contradicted.length === 0) return undefined;
  const first = contradicted[0]!;
  return `the API rejected position ${first} (${JSON.stringify(sentKeys[first])}) and lists that item among those written in data[]: its positions may not count from 0`;
}

/**
 * The id the API gave each item written, by position sent: matched by address or name where data[] names the item
 * (the spec shows no order for data[]), the rest by order when data[] lists as many items as were written.
 */
export function idsOfWritten<I, W extends { id: number }>(
  data: W[],
  writtenKey: (item: W) => string,
  request: I[],
  sentKey: (item: I) => string,
  rejected: ReadonlyMap<number, unknown>,
): Array<number | undefined> {
  const writtenAt = request.flatMap((_, index) => (rejected.has(index) ? [] : [index]));
  const byKey = groupBy(data, writtenKey);
  const ids: Array<number | undefined> = [];
  for (const index of writtenAt) ids[index] = byKey.get(sentKey(request[index]!))?.shift()?.id;
  // Entries named otherwise than sent (the API's own spelling, a suggestion a competitor became): when data[] lists one
  // entry per item written, those left take the ids left, in order.
  if (data.length === writtenAt.length) {
    const claimed = new Set(ids.filter((id): id is number => id !== undefined));
    const left = data.map((item) => item.id).filter((id) => !claimed.has(id));
    for (const index of writtenAt) if (ids[index] === undefined) ids[index] = left.shift();
  }
  return ids;
}
