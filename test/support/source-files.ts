import { readdirSync } from 'node:fs';
import { join, sep } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** Every file under `folder` whose name matches `names`, as a path from the repository's root spelled with `/`. */
export function sourceFiles(folder: string, names: RegExp = /\.(ts|js)$/): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path, names);
    return names.test(entry.name) ? [path.split(sep).join('/')] : [];
  });
}
