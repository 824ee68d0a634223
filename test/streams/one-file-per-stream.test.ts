import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sourceFiles } from '../support/source-files.js';
import { describe, expect, it } from 'vitest';
import { STREAM_NAMES } from '../../src/streams/registry.js';

/**
 * docs/adding-a-stream.md: a stream is its own file and one line of the registry. Outside the simulator, the CLI,
 * the reports and plan/apply (which may name endpoints and streams for people), no code names a stream: not as a
 * string, not in an import path, not as an identifier. The API uses some of the same words for its own things (a ranking metric named
 * `visibility`, a path segment `citations`); those few are listed below with the reason, so a new one fails here.
 */

const ROOT = join(import.meta.dirname, '../..');
/**
 * plan and apply (src/manage, and their write client src/api/writes/writes.ts) name the API's write resources, tracked
 * pages and competitors, which share their words with two streams but are not streams. verify (src/verify) asks the
 * API for the reports some streams read, through their endpoint declarations, and sums the tables those streams fill.
 */
const MAY_NAME_STREAMS = /^src\/(simulator|cli|ops|manage|verify)\/|^src\/api\/writes\/writes\.ts$/;

/** Words of the API that are also stream names, where they mean the API's thing. */
const API_WORDS: Array<{ file: string; text: string; why: string }> = [
  { file: 'src/streams/product-ranking-report.ts', text: "'visibility'", why: 'a ranking metric of endpoint 19' },
  { file: 'src/streams/visibility-report.ts', text: "'visibility'", why: 'a path segment of endpoint 16' },
  { file: 'src/streams/tracked-urls.ts', text: "'citations'", why: 'a sort order of endpoint 3' },
  { file: 'src/streams/domain-details.ts', text: "'citations'", why: 'a path segment of endpoint 18' },
  { file: 'src/streams/swot.ts', text: "'competitors'", why: 'a query parameter of endpoint 20' },
];

const spellings = (name: string) => {
  const camel = name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
  return { snake: name, camel, kebab: name.replace(/_/g, '-') };
};

/** The code of a file without its comments, where prose may say "citations" or "conversations" freely. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** Every place a file's code names a stream: quoted, in an import path, or as a multi-word identifier. */
function namings(file: string, text: string): string[] {
  const found: string[] = [];
  for (const name of STREAM_NAMES) {
    const { snake, camel, kebab } = spellings(name);
    const own = file === `src/streams/${kebab}.ts` || file === 'src/streams/registry.ts';
    if (own) continue;
    const patterns = [...new Set([snake, camel, kebab])].map((spelling) => new RegExp(`(['"\`])${spelling}\\1`, 'g'));
    patterns.push(new RegExp(`/${kebab}\\.js['"]`, 'g'));
    if (camel !== snake) patterns.push(new RegExp(`(?<![A-Za-z0-9_$])${camel}(?![A-Za-z0-9_$])`, 'g'));
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) {
        const allowed = API_WORDS.some((word) => word.file === file && word.text === match[0]);
        if (!allowed) found.push(`${file}: ${match[0]} (stream ${name})`);
      }
    }
  }
  return found;
}

describe('one stream, one file', () => {
  it('names a stream only in its own file and the registry (outside the simulator, the CLI and the reports)', () => {
    const files = sourceFiles('src').filter((file) => !MAY_NAME_STREAMS.test(file));
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((file) => namings(file, code(readFileSync(join(ROOT, file), 'utf8'))));
    expect(found).toEqual([]);
  });

  it('catches each spelling of a stream name, and lets its own file use it', () => {
    expect(namings('src/engine/x.ts', "const s = 'tracked_urls';")).toEqual([
      "src/engine/x.ts: 'tracked_urls' (stream tracked_urls)",
    ]);
    expect(namings('src/engine/x.ts', "import { a } from './tracked-urls.js';")).toHaveLength(1);
    expect(namings('src/engine/x.ts', 'client.trackedUrls(7)')).toEqual([
      'src/engine/x.ts: trackedUrls (stream tracked_urls)',
    ]);
    expect(namings('src/engine/x.ts', 'const n = "swot";')).toHaveLength(1);
    expect(namings('src/streams/tracked-urls.ts', "name: 'tracked_urls', trackedUrls")).toEqual([]);
    expect(namings('src/engine/x.ts', 'row.conversations; trackedUrlsEndpoint')).toEqual([]);
  });

  it('every listed API word is still there (a stale exception would hide a new naming)', () => {
    for (const word of API_WORDS)
      expect(code(readFileSync(join(ROOT, word.file), 'utf8')), `${word.file}: ${word.why}`).toContain(word.text);
  });
});
