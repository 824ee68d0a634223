/** Splits items into runs of at most `size`, in order: one request each, within the spec's per-request limit. */
export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

/** The items a batch of pending writes sends. */
export function itemsOf<T>(batch: ReadonlyArray<{ write: { item: T } }>): T[] {
  return batch.map(({ write }) => write.item);
}
