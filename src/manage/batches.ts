/** Splits items into runs of at most `size`, in order: one request each, within the spec's per-request limit. */
export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/** Groups items by a key, keeping first-seen order of keys and the items' order within each. */
export function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Array<{ key: K; items: T[] }> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const list = groups.get(key);
    if (list) list.push(item);
    else groups.set(key, [item]);
  }
  return [...groups].map(([key, list]) => ({ key, items: list }));
}
