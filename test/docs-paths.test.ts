import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Every repository path the README and docs/ name in backticks exists, so a page that points a reader at a file cannot
 * outlive the file (docs/architecture.md, "Where a change goes"). Paths with placeholders (`<name>`, `NNN`, `*`) are
 * patterns, not files, and are left out.
 */

const PAGES = [
  'README.md',
  ...readdirSync('docs', { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.md')),
];
const PATH_IN_CODE = /`((?:src|test|sql|scripts|bench|deploy|docs|bin)\/[\w./-]+)`/g;
const PATTERN = /<|NNN|\*|\{/;

/** The paths a page names; an import of `src/x.js` names the TypeScript file `src/x.ts`. */
function namedPaths(text: string): string[] {
  return [...text.matchAll(PATH_IN_CODE)]
    .map((match) => match[1]!.replace(/[.,:]+$/, ''))
    .filter((path) => !PATTERN.test(path));
}

function exists(path: string): boolean {
  return existsSync(path) || (path.startsWith('src/') && existsSync(path.replace(/\.js$/, '.ts')));
}

describe('paths named in the docs', () => {
  it('finds paths to check', () => {
    const page = readFileSync('docs/architecture.md', 'utf8');
    expect(namedPaths(page)).toContain('src/engine/fetch/availability.ts');
    expect(namedPaths('`src/streams/<name>.ts` and `sql/migrations/NNN_<what>.sql`')).toEqual([]);
  });

  it('all exist', () => {
    const missing = PAGES.flatMap((page) => {
      const file = page === 'README.md' ? page : `docs/${page}`;
      return namedPaths(readFileSync(file, 'utf8'))
        .filter((path) => !exists(path))
        .map((path) => `${file}: ${path}`);
    });
    expect(missing).toEqual([]);
  });
});
