import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every repository path and relative link in the README and docs/ exists, so a page cannot outlive the file it points
 * a reader to (docs/architecture.md, "Where a change goes").
 */

const PAGES = [
  'README.md',
  ...readdirSync('docs', { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file)),
];
/** A path from the repository's root, wherever it stands in the text; the look-behind leaves URLs out. */
const REPOSITORY_PATH =
  /(?<![\w./-])(?:\.\.\/)*((?:src|test|sql|scripts|bench|deploy|docs|bin|examples|\.ci)\/[\w./-]*\w)/g;
/** A Markdown link to a file beside the page. */
const RELATIVE_LINK = /\]\((?!https?:|mailto:|#)([^)\s#]+)/g;
/** Patterns of files (`sql/migrations/NNN_<what>.sql`), not files. */
const PLACEHOLDER = /NNN/;

/** Paths of the page that do not exist: repository paths from the root, links from the page's folder. */
function missingPaths(page: string, text: string): string[] {
  const fromRoot = [...text.matchAll(REPOSITORY_PATH)].map((match) => match[1]!);
  const fromPage = [...text.matchAll(RELATIVE_LINK)].map((match) => join(dirname(page), match[1]!));
  return [...fromRoot, ...fromPage].filter((path) => !PLACEHOLDER.test(path) && !exists(path));
}

/** A TypeScript import names `src/x.js` for the file `src/x.ts`. */
function exists(path: string): boolean {
  return existsSync(path) || (path.startsWith('src/') && existsSync(path.replace(/\.js$/, '.ts')));
}

describe('paths named in the docs', () => {
  it('finds a missing path in code, in prose and in a link', () => {
    const text = '`src/gone.ts`, then test/gone.test.ts, see [x](gone.md) or https://example.com/src/a.ts';
    expect(missingPaths('docs/page.md', text)).toEqual(['src/gone.ts', 'test/gone.test.ts', 'docs/gone.md']);
    expect(missingPaths('docs/page.md', '`sql/migrations/NNN_table.sql` and [Syncing](syncing.md#runs)')).toEqual([]);
  });

  it('all exist', () => {
    const missing = PAGES.flatMap((page) =>
      missingPaths(page, readFileSync(page, 'utf8')).map((path) => `${page}: ${path}`),
    );
    expect(missing).toEqual([]);
  });
});
