import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { addressNormalForm } from './address-normal-form.js';
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
  const problems = result.data.trackedUrls.flatMap((entry, index) =>
    addressNormalForm(entry.url) === undefined ? [`trackedUrls[${index}].url: "${entry.url}" is not an http(s) address, e.g. https://example.com/page`] : [],
  );
  if (problems.length) throw new ManageFileError(source, problems);
  return result.data;
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return '(the file)';
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index > 0 ? '.' : ''}${String(part)}`)).join('');
}
