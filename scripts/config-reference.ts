/**
 * Writes docs/reference/configuration.md from the zod schema that validates the config (src/config/schema.ts, with the
 * streams' settings composed in by src/configuration.ts): every setting's path, type, default and allowed values come
 * from the schema, its text from the doc comment above it. `npm run docs` runs it; test/docs-generated.test.ts fails
 * when the page is older than the schema.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { z } from 'zod';
import { configSchema } from '../src/configuration.js';

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  format?: string;
}

/** The doc comments of the properties of every object literal, by the schema constant or function that holds it. */
interface ObjectDocs {
  docs: Map<string, string>;
  /** The schema constants a property's value names, e.g. `sync` -> syncConfigSchema. */
  refs: Map<string, string>;
}

const SOURCE_FILES = [
  'src/config/schema.ts',
  'src/config/redis-settings.ts',
  ...readdirSync('src/streams')
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join('src/streams', name)),
];

function docOf(node: ts.Node, text: string): string | undefined {
  const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
  const doc = ranges
    .map((range) => text.slice(range.pos, range.end))
    .filter((comment) => comment.startsWith('/**'))
    .pop();
  if (!doc) return undefined;
  return doc
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .join(' ')
    .trim();
}

/**
 * Every `const NAME = z.object({...})`, every `function NAMEFor() { return z.object({...}) }` (as NAME) and every
 * stream's `settings: {...}`, with its properties' docs.
 */
function collectObjects(): { objects: Map<string, ObjectDocs>; streamSettings: Map<string, string> } {
  const objects = new Map<string, ObjectDocs>();
  const streamSettings = new Map<string, string>();
  for (const file of SOURCE_FILES) {
    const text = readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node, owner: string | undefined): void => {
      let nextOwner = owner;
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) nextOwner = node.name.text;
      if (ts.isFunctionDeclaration(node) && node.name) nextOwner = node.name.text.replace(/For$/, '');
      if (
        ts.isPropertyAssignment(node) &&
        ts.isIdentifier(node.name) &&
        node.name.text === 'settings' &&
        ts.isObjectLiteralExpression(node.initializer)
      ) {
        for (const property of node.initializer.properties) {
          if (ts.isPropertyAssignment(property) && ts.isIdentifier(property.name)) {
            const doc = docOf(property, text);
            if (doc) streamSettings.set(property.name.text, doc);
          }
        }
        return;
      }
      if (ts.isCallExpression(node) && nextOwner && node.expression.getText(source).endsWith('.object')) {
        const literal = node.arguments[0];
        if (literal && ts.isObjectLiteralExpression(literal) && !objects.has(nextOwner)) {
          const entry: ObjectDocs = { docs: new Map(), refs: new Map() };
          for (const property of literal.properties) {
            if (!ts.isPropertyAssignment(property)) continue;
            const name =
              ts.isIdentifier(property.name) || ts.isStringLiteral(property.name) ? property.name.text : undefined;
            if (!name) continue;
            const doc = docOf(property, text);
            if (doc) entry.docs.set(name, doc);
            const named = property.initializer.getText(source).match(/\b([a-z][A-Za-z]*Schema)\b/);
            if (named) entry.refs.set(name, named[1]!);
          }
          objects.set(nextOwner, entry);
        }
      }
      ts.forEachChild(node, (child) => visit(child, nextOwner));
    };
    visit(source, undefined);
  }
  return { objects, streamSettings };
}

interface Row {
  path: string;
  type: string;
  default: string;
  allowed: string;
  doc: string;
}

function typeOf(schema: JsonSchema): string {
  if (schema.enum) return 'one of';
  if (schema.anyOf) return [...new Set(schema.anyOf.map(typeOf))].join(' or ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.type === 'array') return `array of ${schema.items ? typeOf(schema.items) : 'values'}`;
  if (schema.type === 'object' && !schema.properties) return 'object';
  if (Array.isArray(schema.type)) return schema.type.join(' or ');
  return schema.format === 'uri' ? 'URL' : (schema.type ?? 'value');
}

function allowedOf(schema: JsonSchema): string {
  const values =
    schema.enum ??
    schema.anyOf?.flatMap((option) => option.enum ?? (option.const !== undefined ? [option.const] : [])) ??
    [];
  if (values.length > 0) return values.map((value) => `\`${String(value)}\``).join(', ');
  if (schema.type === 'array' && schema.items) return allowedOf(schema.items);
  const max = schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER ? schema.maximum : undefined;
  const low =
    schema.minimum !== undefined
      ? `${schema.minimum}`
      : schema.exclusiveMinimum !== undefined
        ? `above ${schema.exclusiveMinimum}`
        : undefined;
  if (low !== undefined && max !== undefined) return `${low} to ${max}`;
  if (low !== undefined) return low.startsWith('above') ? low : `at least ${low}`;
  if (max !== undefined) return `at most ${max}`;
  return '';
}

function shown(value: unknown): string {
  if (value === undefined) return '';
  const text = JSON.stringify(value);
  return text.length > 60 ? `\`${text.slice(0, 57)}...\`` : `\`${text}\``;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function rows(): Row[] {
  const json = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const { objects, streamSettings } = collectObjects();
  const found: Row[] = [];
  const walk = (schema: JsonSchema, path: string, owner: string | undefined): void => {
    const docs = owner ? objects.get(owner) : undefined;
    for (const [name, child] of Object.entries(schema.properties ?? {})) {
      if (name === '$schema') continue;
      const childPath = path ? `${path}.${name}` : name;
      const doc = docs?.docs.get(name) ?? (owner === 'syncConfigSchema' ? streamSettings.get(name) : undefined) ?? '';
      const ref = docs?.refs.get(name);
      const items = child.type === 'array' ? child.items : undefined;
      found.push({
        path: childPath,
        type: typeOf(child),
        default: shown(child.default),
        allowed: allowedOf(child),
        doc,
      });
      if (child.properties) walk(child, childPath, ref ?? owner);
      else if (items?.properties) walk(items, `${childPath}[]`, ref);
    }
  };
  walk(json, '', 'composeConfigSchema');
  return found;
}

export function configReference(): string {
  const lines = [
    '# Configuration reference',
    '',
    'Every setting of `bvsync.config.json`, generated from the schema that validates it (`src/config/schema.ts`).',
    'Run `npm run docs` after changing the schema; a test fails while this page is older than the schema.',
    'For how to set bvsync up, read [Configuration](../configuration.md).',
    '',
  ];
  const all = rows();
  // A setting with settings below it gets a section of its own; the plain ones share the first.
  const rowsBelow = new Set(all.filter((row) => /[.[]/.test(row.path)).map((row) => row.path.split(/[.[]/)[0]!));
  const sections = new Map<string, Row[]>([['top level', []]]);
  for (const row of all) {
    const top = row.path.split(/[.[]/)[0]!;
    const section = rowsBelow.has(top) ? top : 'top level';
    sections.set(section, [...(sections.get(section) ?? []), row]);
  }
  for (const [top, sectionRows] of sections) {
    lines.push(
      top === 'top level' ? '## Top-level settings' : `## \`${top}\``,
      '',
      '| setting | type | default | allowed | what it is |',
      '|---|---|---|---|---|',
    );
    for (const row of sectionRows) {
      lines.push(
        `| \`${row.path}\` | ${cell(row.type)} | ${cell(row.default)} | ${cell(row.allowed)} | ${cell(row.doc)} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

if (process.argv[1]?.endsWith('config-reference.ts')) {
  writeFileSync('docs/reference/configuration.md', configReference());
  process.stdout.write('wrote docs/reference/configuration.md\n');
}
