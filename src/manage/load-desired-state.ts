import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parseDocument, parse as parseYaml } from 'yaml';
import { addressNormalForm, competitorKey } from './address-normal-form.js';
import { errnoOf, errorMessage } from '../format.js';
import { keyHint, keysAt, settingPath } from '../key-hint.js';
import {
  competitorEntrySchema,
  desiredStateJsonSchema,
  desiredStateSchema,
  personaChangeSchema,
  tagChangeSchema,
  topicEntrySchema,
  trackedUrlEntrySchema,
  type DesiredState,
} from './desired-state-schema.js';
import { ManageFileError } from './manage-file-error.js';

/**
 * Reads and checks a desired-state file: JSON for `.json`, YAML otherwise. Every problem is listed at once with its
 * path and line, e.g. `topics[2].scenarios (line 14): must have at most 100 items`.
 */
export function loadDesiredState(path: string): DesiredState {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ManageFileError(path, [`cannot be read (${errnoOf(error) ?? errorMessage(error)}); check the path`]);
  }
  const json = extname(path).toLowerCase() === '.json';
  let raw: unknown;
  try {
    raw = json ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ManageFileError(path, [
      `is not valid ${json ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`,
    ]);
  }
  return checkDesiredState(raw, path, lineLocator(text));
}

/** The line of the file a path of its data starts on (YAML reads JSON too, with positions); undefined when not found. */
function lineLocator(text: string): (path: ReadonlyArray<PropertyKey>) => number | undefined {
  const document = parseDocument(text);
  return (path) => {
    for (let length = path.length; length >= 0; length--) {
      const node = document.getIn(path.slice(0, length) as Array<string | number>, true) as
        | { range?: [number, number, number] }
        | undefined;
      const offset = node?.range?.[0];
      if (offset !== undefined) return text.slice(0, offset).split('\n').length;
    }
    return undefined;
  };
}

/** Checks a parsed desired state (from a file or built in code) and returns it with its defaults filled in. */
export function checkDesiredState(
  raw: unknown,
  source: string,
  lineOf?: (path: ReadonlyArray<PropertyKey>) => number | undefined,
): DesiredState {
  // A place in the file: its path, and its line when the file gave one (`lineAt` names the key of an unknown key).
  const where = (path: ReadonlyArray<PropertyKey>, lineAt = path) => {
    const line = lineOf?.(lineAt);
    return `${path.length ? settingPath(path) : '(the file)'}${line === undefined ? '' : ` (line ${line})`}`;
  };
  const result = desiredStateSchema.safeParse(raw ?? {});
  const schemaProblems = result.success
    ? []
    : result.error.issues.flatMap((issue) =>
        issue.code === 'unrecognized_keys'
          ? issue.keys.map(
              (key) =>
                `${where(issue.path, [...issue.path, key])}: unknown key "${key}"${keyHint(key, keysAt(desiredStateJsonSchema(), issue.path))}`,
            )
          : [`${where(issue.path)}: ${issue.message}`],
      );
  // The entries that are valid by themselves, by their place in the file: an entry repeated is said beside a typo
  // elsewhere, not only once the typo is fixed ("every problem is listed at once").
  const lists = validEntries(raw);
  /**
   * An entry that repeats an earlier one by the key the API tells them apart by: one of the two would be lost (a
   * second topic's scenarios), sent twice (two PATCHes, the last one winning) or rejected as a conflict with the first.
   */
  const repeated = <L extends ListName>(
    list: L,
    keyOf: (entry: IndexedLists[L][number]['entry']) => string | number | undefined,
    sameness: string,
  ): string[] => {
    const first = new Map<string | number, number>();
    const problems: string[] = [];
    for (const { entry, index } of lists[list]) {
      const key = keyOf(entry);
      if (key === undefined) continue;
      const earlier = first.get(key);
      if (earlier === undefined) first.set(key, index);
      else problems.push(`${where([list, index])}: repeats ${list}[${earlier}] (${sameness}); keep one entry`);
    }
    return problems;
  };
  const problems = [
    ...schemaProblems,
    ...lists.trackedUrls.flatMap(({ entry, index }) =>
      addressNormalForm(entry.url) === undefined
        ? [
            `${where(['trackedUrls', index, 'url'])}: "${entry.url}" is not an http(s) address, e.g. https://example.com/page`,
          ]
        : [],
    ),
    ...repeated('trackedUrls', (entry) => addressNormalForm(entry.url), 'the same address in normal form'),
    ...repeated(
      'topics',
      (entry) => `${entry.name}\u0000${entry.type}\u0000${entry.language}`,
      'the same name, type and language',
    ),
    ...repeated('competitors', (entry) => competitorKey(entry.name), 'the same name, case aside'),
    ...repeated('personas', (entry) => entry.id, 'the same id'),
    ...repeated('tags', (entry) => entry.id, 'the same id'),
  ];
  if (problems.length || !result.success) throw new ManageFileError(source, problems);
  return result.data;
}

type Indexed<T> = Array<{ entry: T; index: number }>;
type IndexedLists = { [list in ListName]: Indexed<DesiredState[list][number]> };
type ListName = 'trackedUrls' | 'topics' | 'competitors' | 'personas' | 'tags';

/** Each list's entries that pass their own schema, with their places; a list that is no list has none. */
function validEntries(raw: unknown): IndexedLists {
  const lists = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const valid = <T>(
    list: ListName,
    schema: { safeParse(entry: unknown): { success: true; data: T } | { success: false } },
  ): Indexed<T> => {
    const entries = lists[list];
    if (!Array.isArray(entries)) return [];
    return entries.flatMap((entry, index) => {
      const parsed = schema.safeParse(entry);
      return parsed.success ? [{ entry: parsed.data, index }] : [];
    });
  };
  return {
    trackedUrls: valid('trackedUrls', trackedUrlEntrySchema),
    topics: valid('topics', topicEntrySchema),
    competitors: valid('competitors', competitorEntrySchema),
    personas: valid('personas', personaChangeSchema),
    tags: valid('tags', tagChangeSchema),
  };
}
