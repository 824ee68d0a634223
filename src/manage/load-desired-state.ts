import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { addressNormalForm, competitorKey } from './address-normal-form.js';
import { desiredStateSchema, type DesiredState } from './desired-state-schema.js';
import { ManageFileError } from './manage-file-error.js';
import { unknownKeyHint } from './unknown-key-hint.js';

/**
 * Reads and checks a desired-state file: JSON for `.json`, YAML otherwise (YAML also reads JSON). Every problem is
 * listed at once, each with its path in the file, e.g. `topics[2].scenarios: must have at most 100 items`.
 */
export function loadDesiredState(path: string): DesiredState {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ManageFileError(path, [`cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); check the path`]);
  }
  let raw: unknown;
  try {
    raw = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ManageFileError(path, [`is not valid ${extname(path).toLowerCase() === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`]);
  }
  return checkDesiredState(raw, path);
}

/** Checks a parsed desired state (from a file or built in code) and returns it with its defaults filled in. */
export function checkDesiredState(raw: unknown, source: string): DesiredState {
  const result = desiredStateSchema.safeParse(raw ?? {});
  if (!result.success) {
    throw new ManageFileError(
      source,
      result.error.issues.flatMap((issue) =>
        issue.code === 'unrecognized_keys'
          ? issue.keys.map((key) => `${formatPath(issue.path)}: unknown key "${key}"${unknownKeyHint(key, issue.path)}`)
          : [`${formatPath(issue.path)}: ${issue.message}`],
      ),
    );
  }
  const state = result.data;
  const problems = [
    ...state.trackedUrls.flatMap((entry, index) =>
      addressNormalForm(entry.url) === undefined ? [`trackedUrls[${index}].url: "${entry.url}" is not an http(s) address, e.g. https://example.com/page`] : [],
    ),
    ...repeated('trackedUrls', state.trackedUrls, (entry) => addressNormalForm(entry.url), 'the same address in normal form'),
    ...repeated('topics', state.topics, (entry) => `${entry.name}\u0000${entry.type}\u0000${entry.language}`, 'the same name, type and language'),
    ...repeated('competitors', state.competitors, (entry) => competitorKey(entry.name), 'the same name, case aside'),
    ...repeated('personas', state.personas, (entry) => entry.id, 'the same id'),
    ...repeated('tags', state.tags, (entry) => entry.id, 'the same id'),
  ];
  if (problems.length) throw new ManageFileError(source, problems);
  return state;
}

/**
 * An entry that repeats an earlier one by the key the API tells them apart by: one of the two would be lost (a
 * second topic's scenarios), sent twice (two PATCHes, the last one winning) or rejected as a conflict with the first.
 */
function repeated<T>(list: string, entries: readonly T[], keyOf: (entry: T) => string | number | undefined, sameness: string): string[] {
  const first = new Map<string | number, number>();
  const problems: string[] = [];
  entries.forEach((entry, index) => {
    const key = keyOf(entry);
    if (key === undefined) return;
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, index);
    else problems.push(`${list}[${index}]: repeats ${list}[${earlier}] (${sameness}); keep one entry`);
  });
  return problems;
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return '(the file)';
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index > 0 ? '.' : ''}${String(part)}`)).join('');
}
