import { readFileSync } from 'node:fs';

/**
 * bvsync's own version, from its package.json (beside `src/` and `dist/` alike): npm_package_version is the version of
 * whatever package npm runs in, which under `npx bvsync` in another project is that project's.
 */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
}
