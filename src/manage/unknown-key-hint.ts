import { keyHint, keysAt } from '../key-hint.js';
import { desiredStateJsonSchema } from './desired-state-schema.js';

/**
 * What to write instead of a key the file may not hold there: the allowed key it is a typo of, else every key allowed
 * there, so the message says what to do and not only what is wrong.
 */
export function unknownKeyHint(key: string, path: ReadonlyArray<PropertyKey>): string {
  return keyHint(key, keysAt(desiredStateJsonSchema(), path));
}
