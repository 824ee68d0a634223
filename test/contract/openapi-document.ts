import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { OPENAPI_DOCUMENT } from '../support/prism.js';

// ajv-formats is CommonJS with a default export; under ESM its function is the module's `default`.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, unknown>;

export interface Operation {
  method: 'get' | 'post' | 'patch';
  /** The path template, e.g. `/customer/v1/brands/{brand_id}/conversations`. */
  path: string;
  operationId: string;
  /** Query parameters: name and schema. */
  query: Array<{ name: string; required: boolean; schema: Json }>;
  responses: Record<string, Json>;
}

export interface OpenApiDocument {
  raw: Json;
  operations: Operation[];
  /** The operation a request hits: method and concrete path, e.g. `GET /customer/v1/brands/1/swot/7`. */
  operationFor(method: string, path: string): Operation;
  /**
   * Validates an answer against the response schema of its status (or `default`). `strict` also fails on fields
   * the document does not name: the simulator should send nothing the document leaves out.
   */
  validate(operation: Operation, status: number, body: unknown, strict: boolean): string[];
}

const HTTP_METHODS = ['get', 'post', 'patch'] as const;

/** Reads docs/openapi.yaml and compiles each response schema with ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect). */
export function loadOpenApiDocument(path: string = OPENAPI_DOCUMENT): OpenApiDocument {
  const raw = parse(readFileSync(path, 'utf8')) as Json;
  const components = raw.components as Json;
  const paths = raw.paths as Record<string, Json>;
  const resolve = (value: Json): Json => {
    const ref = value.$ref;
    if (typeof ref !== 'string') return value;
    const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(ref) ?? [];
    return (components[section!] as Json)[name!] as Json;
  };

  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(paths)) {
    const shared = ((item.parameters ?? []) as Json[]).map(resolve);
    for (const method of HTTP_METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const parameters = [...shared, ...((op.parameters ?? []) as Json[]).map(resolve)];
      operations.push({
        method,
        path: template,
        operationId: String(op.operationId),
        query: parameters
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: String(p.name), required: p.required === true, schema: p.schema as Json })),
        responses: Object.fromEntries(
          Object.entries(op.responses as Json).map(([status, response]) => [status, resolve(response as Json)]),
        ),
      });
    }
  }

  const lenient = compiler(raw);
  const strict = compiler(closeObjects(structuredClone(raw)));
  const cache = new Map<string, ValidateFunction>();
  const validatorFor = (operation: Operation, status: string, isStrict: boolean): ValidateFunction => {
    const key = `${operation.method} ${operation.path} ${status} ${isStrict}`;
    let validate = cache.get(key);
    if (!validate) {
      const response = operation.responses[status]!;
      // Point at the response's schema inside the document, so its $refs resolve against the document's root.
      const owner = (paths[operation.path]![operation.method] as Json).responses as Json;
      const declared = owner[status] as Json;
      const pointer =
        typeof declared.$ref === 'string'
          ? `${declared.$ref.slice(1)}/content/application~1json/schema`
          : `/paths/${escapePointerSegment(operation.path)}/${operation.method}/responses/${status}/content/application~1json/schema`;
      if (!((response.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema) {
        throw new Error(`${operation.operationId} ${status}: the document declares no JSON schema`);
      }
      validate = (isStrict ? strict : lenient).compile({ $ref: `openapi.json#${encodeURI(pointer)}` });
      cache.set(key, validate);
    }
    return validate;
  };

  return {
    raw,
    operations,
    operationFor(method, path) {
      const found = operations.find((op) => op.method === method.toLowerCase() && templateMatches(op.path, path));
      if (!found) throw new Error(`docs/openapi.yaml has no operation for ${method} ${path}`);
      return found;
    },
    validate(operation, status, body, isStrict) {
      const key = operation.responses[String(status)] ? String(status) : 'default';
      if (!operation.responses[key]) return [`status ${status} is not declared (and there is no default)`];
      const validate = validatorFor(operation, key, isStrict);
      if (validate(body)) return [];
      return (validate.errors ?? []).map(
        (e) => `${e.instancePath || '(body)'} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
      );
    },
  };
}

function compiler(document: Json): Ajv2020 {
  // strict off: the document holds OpenAPI keywords (paths, parameters, ...) that are not JSON Schema.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: 'openapi.json' });
  return ajv;
}

function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function templateMatches(template: string, path: string): boolean {
  const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
  return pattern.test(path);
}

/**
 * Every object schema that names its properties and says nothing of others gets `additionalProperties: false`
 * (or `unevaluatedProperties: false` where it is built with allOf), so a field the document does not name fails.
 */
function closeObjects(document: Json): Json {
  // A component that is one part of an allOf is left open: the other parts add its siblings.
  const parts = new Set<string>();
  JSON.stringify(document, (key, value: unknown) => {
    if (key === 'allOf' && Array.isArray(value))
      for (const part of value) if (typeof part?.$ref === 'string') parts.add(part.$ref);
    return value;
  });
  const schemas = (document.components as Json).schemas as Json;
  const closeObject = (node: unknown, insideAllOf: boolean): Json => {
    if (Array.isArray(node)) {
      node.forEach((item) => closeObject(item, false));
      return node as unknown as Json;
    }
    if (typeof node !== 'object' || node === null) return node as Json;
    const schema = node as Json;
    // Used alone, an open part is closed where it is used ($ref applies in place in 2020-12).
    if (typeof schema.$ref === 'string' && parts.has(schema.$ref) && !insideAllOf) schema.unevaluatedProperties = false;
    if (Array.isArray(schema.allOf)) {
      (schema.allOf as unknown[]).forEach((part) => closeObject(part, true));
      if (!insideAllOf && !('unevaluatedProperties' in schema)) schema.unevaluatedProperties = false;
    }
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && typeof value === 'object' && value !== null)
        for (const property of Object.values(value)) closeObject(property, false);
      else if (key !== 'allOf') closeObject(value, false);
    }
    if (
      schema.properties &&
      typeof schema.properties === 'object' &&
      !('additionalProperties' in schema) &&
      !insideAllOf &&
      !Array.isArray(schema.allOf)
    ) {
      schema.additionalProperties = false;
    }
    return schema;
  };
  for (const [name, schema] of Object.entries(schemas)) closeObject(schema, parts.has(`#/components/schemas/${name}`));
  closeObject(document.paths, false);
  return document;
}
