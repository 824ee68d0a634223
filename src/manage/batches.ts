/** The items a batch of pending writes sends. */
export function itemsOf<T>(batch: ReadonlyArray<{ write: { item: T } }>): T[] {
  return batch.map(({ write }) => write.item);
}
