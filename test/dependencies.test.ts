import { readFileSync } from 'node:fs';
import { sourceFiles } from './support/source-files.js';
import { describe, expect, it } from 'vitest';

/**
 * Every package src/ imports or resolves is a production dependency of package.json: an installed bvsync
 * (`npm install --omit=dev`) must not lean on a package hoisted there as another one's dependency.
 */

const PACKAGE = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };

/** The packages a text imports, re-exports or resolves, by name (`@scope/name` or `name`), builtins left out. */
function packagesUsed(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(
    /(?:\bfrom\s+|\bimport\(\s*|\brequire(?:\.resolve)?\(\s*|^\s*import\s+)['"](@?[a-z0-9][\w.-]*(?:\/[\w.@-]+)*|node:[\w/]+)['"]/gm,
  )) {
    const specifier = match[1]!;
    if (specifier.startsWith('node:')) continue;
    const parts = specifier.split('/');
    found.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
  }
  return [...found];
}

describe('the packages src/ uses', () => {
  it('are found in every form, by package name', () => {
    const text = [
      "import { a } from 'alpha';",
      "import type { B } from '@scope/beta/sub';",
      "const c = await import('gamma');",
      "require.resolve('@scope/delta/package.json');",
      "import 'epsilon';",
      "import { readFileSync } from 'node:fs';",
      "import { x } from './local.js';",
    ].join('\n');
    expect(packagesUsed(text).sort()).toEqual(['@scope/beta', '@scope/delta', 'alpha', 'epsilon', 'gamma']);
  });

  it('are each a production dependency in package.json', () => {
    const missing = sourceFiles('src').flatMap((file) =>
      packagesUsed(readFileSync(file, 'utf8'))
        .filter((name) => PACKAGE.dependencies[name] === undefined)
        .map((name) => `${file}: ${name}`),
    );
    expect(missing).toEqual([]);
  });
});
