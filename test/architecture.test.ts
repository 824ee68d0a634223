import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { sourceFiles } from './support/source-files.js';
import { describe, expect, it } from 'vitest';

/**
 * The import rule of docs/architecture.md, "Layers": each layer of src/ imports only the layers listed for it there,
 * the shared single-file modules import no layer, and no layer reaches itself again through the layers it imports.
 */

const SRC = 'src';
const SHARED = [
  'days',
  'format',
  'log',
  'make-folder',
  'text-table',
  'vocabulary',
  'redis-keys',
  'redis-address',
  'key-hint',
  'group-by',
  'slice-ids',
  'within',
];
const MAY_IMPORT: Record<string, string[]> = {
  api: ['config'],
  warehouse: [],
  streams: ['api', 'config', 'warehouse'],
  config: [],
  configuration: ['config', 'streams'],
  engine: ['api', 'config', 'configuration', 'notify', 'streams', 'verify', 'warehouse'],
  notify: ['config'],
  ops: ['api', 'engine', 'warehouse'],
  manage: ['api', 'warehouse'],
  verify: ['api', 'streams', 'warehouse'],
  cli: [
    'api',
    'config',
    'configuration',
    'engine',
    'manage',
    'notify',
    'ops',
    'simulator',
    'streams',
    'verify',
    'warehouse',
  ],
  simulator: ['api'],
  index: ['api', 'config', 'configuration', 'engine', 'streams', 'warehouse'],
};
/** The two crossings docs/architecture.md names: importing file's layer, imported file. */
const CROSSINGS: Array<{ from: string; to: string }> = [
  { from: 'engine', to: 'ops/sync-metrics.ts' },
  { from: 'api', to: 'warehouse/load/slice-batch.ts' },
];

/** The layer of a path inside src/: its first folder, or the file's name for a module at the top. */
function layerOf(pathInSrc: string): string {
  const [first, ...rest] = pathInSrc.split(sep);
  return rest.length ? first! : first!.replace(/\.(ts|js)$/, '');
}

/** Every relative module a file imports or re-exports, types and dynamic imports included. */
function relativeImports(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(
    /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|^\s*import\s+['"](\.[^'"]+)['"]/gm,
  )) {
    found.push((match[1] ?? match[2] ?? match[3])!);
  }
  return found;
}

/** A circle of layers that MAY_IMPORT allows, as the path that closes it (`config -> streams -> api -> config`), or none. */
function layerCircle(graph: Record<string, readonly string[]>): string[] {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (layer: string): string[] => {
    const seen = path.indexOf(layer);
    if (seen >= 0) return [...path.slice(seen), layer];
    if (done.has(layer)) return [];
    path.push(layer);
    for (const next of graph[layer] ?? []) {
      const circle = visit(next);
      if (circle.length) return circle;
    }
    path.pop();
    done.add(layer);
    return [];
  };
  for (const layer of Object.keys(graph)) {
    const circle = visit(layer);
    if (circle.length) return circle;
  }
  return [];
}

interface Crossing {
  file: string;
  imports: string;
}

function forbiddenImports(): Crossing[] {
  const problems: Crossing[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = layerOf(relative(SRC, file));
    for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
      const target = relative(SRC, normalize(join(dirname(file), specifier))).replace(/\.js$/, '.ts');
      const to = layerOf(target);
      if (to === from || (SHARED.includes(to) && !SHARED.includes(from))) continue;
      if (SHARED.includes(from)) {
        if (SHARED.includes(to)) continue;
        problems.push({ file: relative(SRC, file), imports: target });
        continue;
      }
      if (MAY_IMPORT[from]?.includes(to)) continue;
      if (CROSSINGS.some((crossing) => crossing.from === from && crossing.to === target.split(sep).join('/'))) continue;
      problems.push({ file: relative(SRC, file), imports: target });
    }
  }
  return problems;
}

/** Files outside src/warehouse/ that may spell a query of bvsync's own tables, each with why. */
const OWN_TABLE_SQL_ALLOWED: Readonly<Record<string, string>> = {
  'src/cli/status/status.ts': 'it prints a query for the user to run, and runs none of its own',
};

/** Lines outside src/warehouse/ that query bvsync's own tables (`_sync_state`, `_heal_runs`, ...). */
function ownTableSqlOutsideWarehouse(): string[] {
  return sourceFiles(SRC)
    .filter((file) => !file.startsWith('src/warehouse/') && !(file in OWN_TABLE_SQL_ALLOWED))
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) => (/\b(FROM|INTO|UPDATE|JOIN)\s+_[a-z]/.test(line) ? [`${file}:${index + 1}`] : [])),
    );
}

describe('the layers of src/', () => {
  it('finds imports of every form', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b/b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "const e = await import('./e.js');",
      "import './f.js';",
      "import { readFileSync } from 'node:fs';",
    ].join('\n');
    expect(relativeImports(text)).toEqual(['./a.js', '../b/b.js', './c.js', './d.js', './e.js', './f.js']);
  });

  it('knows every layer it finds', () => {
    const layers = new Set(sourceFiles(SRC).map((file) => layerOf(relative(SRC, file))));
    expect([...layers].filter((layer) => !(layer in MAY_IMPORT) && !SHARED.includes(layer))).toEqual([]);
  });

  it('finds a circle of layers', () => {
    expect(layerCircle({ config: ['streams'], streams: ['api'], api: ['config'], cli: ['config'] })).toEqual([
      'config',
      'streams',
      'api',
      'config',
    ]);
    expect(layerCircle({ cli: ['engine', 'config'], engine: ['config'], config: [] })).toEqual([]);
  });

  it('allows no circle between layers: each layer imports only layers below it', () => {
    expect(layerCircle(MAY_IMPORT).join(' -> ')).toBe('');
  });

  it('imports only what docs/architecture.md allows', () => {
    expect(forbiddenImports()).toEqual([]);
  });

  it("keeps the SQL of bvsync's own tables in src/warehouse/, behind named functions", () => {
    expect(ownTableSqlOutsideWarehouse()).toEqual([]);
  });
});
