/** Edits (insert, delete, replace) from one word to the other. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** A typo is this many edits from the key meant, at most: `trackedUrl`, `webiste`, `lookbackDay`. */
const TYPO_EDITS = 2;

/**
 * What to write instead of a key a file may not hold where it is, given the keys it may: the one it is a typo of,
 * else every key allowed there, so the message says what to do and not only what is wrong. Empty without keys.
 */
export function keyHint(key: string, keys: readonly string[]): string {
  if (keys.length === 0) return '';
  const nearest = keys
    .map((known) => ({ known, edits: editDistance(known.toLowerCase(), key.toLowerCase()) }))
    .sort((a, b) => a.edits - b.edits)[0]!;
  return nearest.edits <= TYPO_EDITS ? `; did you mean "${nearest.known}"?` : `; the keys here: ${keys.join(', ')}`;
}

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
}

/** The keys a JSON Schema lets an object hold at a place (`topics[0]`: a topic's; `sync`), `$schema` aside. */
export function keysAt(schema: unknown, path: ReadonlyArray<PropertyKey>): string[] {
  let node = schema as SchemaNode | undefined;
  for (const part of path) node = typeof part === 'number' ? node?.items : node?.properties?.[String(part)];
  return Object.keys(node?.properties ?? {}).filter((key) => key !== '$schema');
}

/** A path in a file's data as a reader finds it in the file: `schedules[1].cron`, `topics[2].scenarios`. */
export function settingPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i ? '.' : ''}${String(key)}`)).join('');
}
