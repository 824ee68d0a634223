import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** src/cli/exit-codes.ts is the one home of the exit codes: a command names them, never writes their numbers. */
function cliFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return cliFiles(path);
    return entry.name.endsWith('.ts') && path !== join('src', 'cli', 'exit-codes.ts') ? [path] : [];
  });
}

const LITERAL_EXIT =
  /process\.exit\(\s*\d+\s*\)|exitCode\s*={1,3}\s*\d+|new UsageError\((?:[^()]|\([^()]*\))*?,\s*\d+,?\s*\)/g;

describe('exit codes', () => {
  it('finds a literal exit code in every form it looks for', () => {
    const found = ['process.exit(1);', 'process.exitCode = 2;', 'new UsageError(describe(error), 1);'].filter((text) =>
      new RegExp(LITERAL_EXIT.source).test(text),
    );
    expect(found).toHaveLength(3);
  });

  it('are named, not written as numbers, in src/cli', () => {
    const literal = cliFiles(join('src', 'cli')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(LITERAL_EXIT)].map((match) => `${file}: ${match[0].slice(-40)}`),
    );
    expect(literal).toEqual([]);
  });
});
