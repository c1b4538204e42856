import { readFileSync } from 'node:fs';
import { Ajv2020, type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { Next } from 'koa';
import { VISIBLE_CHARACTER } from '../blank.js';
import { validationFailed, noFieldErrors, type FieldErrors } from '../errors.js';
import { fromRoot } from '../paths.js';
import type { AppContext } from './state.js';

// ajv-formats is CommonJS: under NodeNext its default import is module.exports, whose .default is the plugin.
const addFormats = ajvFormats.default;


export const SCHEMA_DOCUMENT_ID = 'polder';

/** One operation of spec/openapi.yaml, as scripts/gen.mjs writes it into x-operations. */
export interface OperationInfo {
  method: string;
  /** The path below the operation's server, with `{param}`s. */
  path: string;
  /** The whole path, server included (`/v1/...`). */
  fullPath: string;
  scope: string | null;
  /** The component schema of the JSON body, if it takes one. */
  body: string | null;
  /** False when the body may be left out (then it is validated only when sent). */
  bodyRequired: boolean;
  /** The generated schema of the query string, if it takes one. */
  query: string | null;
}

interface SchemaDocument {
  $defs: Record<string, unknown>;
  'x-operations': Record<string, OperationInfo>;
}

function collectVendorKeywords(node: unknown, found: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectVendorKeywords(item, found);
  } else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) found.add(key);
      collectVendorKeywords(value, found);
    }
  }
}

/**
 * `x-null-means-absent: [fields]` on an object schema: those fields sent as null are deleted (or
 * take their default) before the object's properties are checked, as OpenAI takes null for "not given" (its SDKs send
 * it). The handlers then never see a null the generated types do not allow.
 */
const NULL_MEANS_ABSENT = 'x-null-means-absent';

function addNullMeansAbsent(ajv: Ajv2020): void {
  ajv.addKeyword({
    keyword: NULL_MEANS_ABSENT,
    type: 'object',
    schemaType: 'array',
    modifying: true,
    before: 'properties',
    errors: false,
    validate: (fields: string[], data: Record<string, unknown>, parentSchema?: AnySchemaObject) => {
      const properties = (parentSchema?.properties ?? {}) as Record<string, { default?: unknown }>;
      for (const field of fields) {
        if (data[field] !== null) continue;
        // Defaults were assigned before this keyword runs (to absent fields only): a field with one gets it now.
        const fallback = properties[field]?.default;
        if (fallback !== undefined) data[field] = fallback;
        else delete data[field];
      }
      return true;
    },
  });
}

/**
 * Compiles the generated schemas once at start. Bodies are validated as they are; query strings
 * are validated with type coercion, because every query value arrives as a string.
 */
export class Validator {
  private readonly bodies: Ajv2020;
  private readonly queries: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  /** Per query schema, its integer parameters: coercion would read "0x10" as 16 and "1e1" as 10. */
  private readonly integerParams = new Map<string, string[]>();
  readonly operations: Record<string, OperationInfo>;

  constructor(file = fromRoot('src/generated/schemas.json')) {
    const document = JSON.parse(readFileSync(file, 'utf8')) as SchemaDocument;
    this.operations = document['x-operations'];
    const vendorKeywords = new Set<string>();
    collectVendorKeywords(document.$defs, vendorKeywords);
    const { 'x-operations': _operations, ...schemas } = document;
    const make = (coerceTypes: boolean) => {
      const ajv = new Ajv2020({ allErrors: true, strict: true, coerceTypes, useDefaults: true });
      addFormats(ajv);
      addNullMeansAbsent(ajv);
      ajv.addVocabulary([...vendorKeywords].filter((keyword) => keyword !== NULL_MEANS_ABSENT));
      ajv.addSchema(schemas, SCHEMA_DOCUMENT_ID);
      return ajv;
    };
    this.bodies = make(false);
    this.queries = make(true);
    for (const operation of Object.values(this.operations)) {
      if (operation.body) this.compile(operation.body, false);
      if (operation.query) {
        this.compile(operation.query, true);
        const properties = ((document.$defs[operation.query] as { properties?: Record<string, { type?: unknown }> }).properties ?? {});
        this.integerParams.set(
          operation.query,
          Object.entries(properties)
            .filter(([, schema]) => schema.type === 'integer')
            .map(([param]) => param),
        );
      }
    }
  }

  private compile(name: string, coerce: boolean): ValidateFunction {
    const key = `${coerce ? 'query' : 'body'}:${name}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      const ajv = coerce ? this.queries : this.bodies;
      validate = ajv.compile({ $ref: `${SCHEMA_DOCUMENT_ID}#/$defs/${name}` });
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** Returns the field errors of `value` against schema `name`, or undefined when it is valid. */
  check(name: string, value: unknown, { query = false } = {}): FieldErrors | undefined {
    const validate = this.compile(name, query);
    return validate(value) ? undefined : toFieldErrors(validate.errors ?? []);
  }

  /** `hints` replace the generic message of a field that fails, where a caller needs to be told more. */
  body(name: string, hints: Record<string, string> = {}) {
    return async (ctx: AppContext, next: Next): Promise<void> => {
      const errors = this.check(name, ctx.state.body);
      if (errors) {
        for (const [field, hint] of Object.entries(hints)) if (errors[field]) errors[field] = [hint];
        throw validationFailed(errors);
      }
      await next();
    };
  }

  query(name: string) {
    const integers = this.integerParams.get(name) ?? [];
    return async (ctx: AppContext, next: Next): Promise<void> => {
      const query: Record<string, unknown> = { ...ctx.query };
      const errors = this.check(name, query, { query: true }) ?? {};
      // Written in decimal digits only, as the spec's integer means in a URL.
      for (const param of integers) {
        const raw = ctx.query[param];
        if (typeof raw === 'string' && !/^[0-9]{1,15}$/.test(raw) && !errors[param]) errors[param] = ['must be an integer written in decimal digits'];
      }
      if (Object.keys(errors).length > 0) throw validationFailed(errors);
      ctx.state.query = query;
      await next();
    };
  }
}

function dottedPath(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function join(path: string, field: string): string {
  return path ? `${path}.${field}` : field;
}

function describe(error: ErrorObject): { field: string; message: string } {
  const described = describeValue(error);
  // An error about an object's key (propertyNames) names the key: the path is the object's.
  return error.propertyName === undefined ? described : { ...described, message: `key ${JSON.stringify(error.propertyName)} ${described.message}` };
}

function describeValue(error: ErrorObject): { field: string; message: string } {
  const path = dottedPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { field: join(path, String(params.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return { field: join(path, String(params.additionalProperty)), message: 'is not a known field' };
    case 'enum':
      return {
        field: path,
        message: `must be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'const':
      return { field: path, message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'pattern':
      // The spec's way of saying "not only spaces".
      return { field: path, message: params.pattern === VISIBLE_CHARACTER ? 'must not be blank' : (error.message ?? 'is invalid') };
    default:
      return { field: path, message: error.message ?? 'is invalid' };
  }
}

/**
 * Turns Ajv's errors into the contract's map of dotted field paths. For a union (anyOf/oneOf),
 * Ajv reports every branch; when one branch got deeper than the union's own level, the value had
 * that branch's shape, so only its errors are kept; otherwise the branches' type errors are
 * merged into one "must be a or b".
 */
export function toFieldErrors(allErrors: ErrorObject[]): FieldErrors {
  // A failed if/then also reports "must match then schema" beside the useful error from inside it,
  // and propertyNames "property name must be valid" beside the error about the name.
  const errors = allErrors.filter((e) => e.keyword !== 'if' && e.keyword !== 'propertyNames');
  const unionPaths = new Set(
    errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath),
  );
  const result: FieldErrors = noFieldErrors();
  const add = (field: string, message: string) => {
    const key = field || 'body';
    const list = (result[key] ??= []);
    if (!list.includes(message)) list.push(message);
  };
  for (const unionPath of unionPaths) {
    const inside = errors.filter((e) => e.instancePath === unionPath && e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
    const deeper = errors.some((e) => e.instancePath.startsWith(`${unionPath}/`));
    const types = [
      ...new Set(inside.filter((e) => e.keyword === 'type').flatMap((e) => String((e.params as { type: unknown }).type).split(','))),
    ];
    if (!deeper) {
      const others = inside.filter((e) => e.keyword !== 'type');
      if (types.length > 0 && others.length === 0) add(dottedPath(unionPath), `must be ${types.join(' or ')}`);
      for (const other of others) {
        const { field, message } = describe(other);
        add(field, message);
      }
    }
  }
  for (const error of errors) {
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf') continue;
    if (unionPaths.has(error.instancePath)) {
      const deeper = errors.some((e) => e.instancePath.startsWith(`${error.instancePath}/`));
      if (!deeper || error.keyword === 'type') continue;
    }
    const { field, message } = describe(error);
    add(field, message);
  }
  return result;
}
