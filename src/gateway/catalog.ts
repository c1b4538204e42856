// The model catalogue: providers, models, aliases and service prices, loaded from a file an
// operator can replace (CATALOG_FILE). Everything is checked at start, and every problem is
// reported at once, so a broken catalogue is fixed in one edit rather than one error per restart.
import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { parseDocument } from 'yaml';
import { fromRoot } from '../paths.js';
import { LOCAL_CHAT_MODELS, LOCAL_EMBEDDING_MODELS } from './providers/local/adapter.js';
import type { UpstreamParameter } from './providers/types.js';

export type Region = 'eu' | 'external';
export type ProviderKind = 'openai' | 'anthropic' | 'local';

/**
 * Which parameters an OpenAI-compatible provider takes, and under which names
 * (providers/openai/parameters.ts). Named in the catalogue, or known from the provider's host, never
 * from its id: renaming a provider must not change what is sent to it.
 */
export const PROVIDER_PROFILE_NAMES = ['openai', 'mistral', 'anthropic-openai', 'scaleway', 'generic'] as const;
export type ProviderProfileName = (typeof PROVIDER_PROFILE_NAMES)[number];

/** The profile of a provider whose catalogue entry names none: known hosts have their own, any other is generic. */
const PROFILE_BY_HOST: Readonly<Record<string, ProviderProfileName>> = {
  'api.openai.com': 'openai',
  'api.mistral.ai': 'mistral',
  'api.anthropic.com': 'anthropic-openai',
  'api.scaleway.ai': 'scaleway',
};

function profileOfHost(baseUrl: string | undefined): ProviderProfileName {
  if (baseUrl === undefined || !URL.canParse(baseUrl)) return 'generic';
  const host = new URL(baseUrl).hostname;
  return Object.hasOwn(PROFILE_BY_HOST, host) ? PROFILE_BY_HOST[host]! : 'generic';
}

/**
 * An embedding model's input and batch limits when the catalogue gives none, per wire format:
 * in-process models take what the local embedder does; OpenAI-compatible hosts are held to what
 * all of them accept (8,192 tokens per input; 128 inputs keeps a batch within Mistral's per-request
 * token limit as well as OpenAI's 2,048 inputs).
 */
export const EMBEDDING_LIMIT_DEFAULTS: Readonly<Record<ProviderKind, { maxInputTokens: number; maxBatch: number }>> = {
  local: { maxInputTokens: 8_192, maxBatch: 256 },
  openai: { maxInputTokens: 8_192, maxBatch: 128 },
  // Anthropic serves no embeddings; an endpoint of this kind fails as any unsupported call does.
  anthropic: { maxInputTokens: 8_192, maxBatch: 128 },
};

/**
 * Below this cosine similarity a passage found by its embedding alone is noise, not a weak match,
 * when the catalogue sets none (`min_similarity`). Known only for the lexical local model, where
 * texts without a shared word score 0 ± 0.05 and a related one 0.12 and up; semantic models score
 * even unrelated texts far above 0, and no floor was measured for them here.
 */
const DEFAULT_MIN_SIMILARITY: Readonly<Record<string, number>> = { 'local/embed-1024': 0.1 };
export type ModelType = 'chat' | 'embedding';
export type Capability = 'tools' | 'json_schema' | 'vision' | 'audio' | 'files';
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface CatalogProvider {
  id: string;
  region: Region;
  kind: ProviderKind;
  baseUrl?: string;
  /** Non-enumerable, so JSON.stringify, object spread and loggers never carry the secret. */
  apiKey?: string;
  timeoutMs: number;
  /** The parameter profile of an OpenAI-compatible provider (kind openai); absent for the others. */
  profile?: ProviderProfileName;
  /** The circuit breaker's thresholds for this provider's endpoint (src/gateway/breaker.ts); absent: DEFAULT_CIRCUIT. */
  circuit?: CircuitSettings;
  /** False when the api_key names an unset variable; such a provider is skipped, not fatal. */
  available: boolean;
  unavailableReason?: string;
}

/** When a provider's endpoint is skipped after failures, and for how long (src/gateway/breaker.ts). */
export interface CircuitSettings {
  /** Consecutive failures that open the circuit; 0 turns the breaker off for this provider. */
  failures: number;
  /** How long the first open lasts; each failed probe doubles it, up to maxCooldownMs. */
  cooldownMs: number;
  maxCooldownMs: number;
}

/** The catalogue's defaults (also in catalog.schema.json): 5 failures, 10 s doubling up to 5 min. */
export const DEFAULT_CIRCUIT: Readonly<CircuitSettings> = Object.freeze({ failures: 5, cooldownMs: 10_000, maxCooldownMs: 300_000 });

export interface CatalogEndpoint {
  provider: string;
  upstreamModel: string;
  /** The provider's region: the egress guard judges each endpoint on its own. */
  region: Region;
}

/**
 * Credits per 1,000 tokens; `completion` is 0 for embedding models. `cacheRead` and `cacheWrite`
 * price prompt tokens the provider read from or wrote to its prompt cache (defaults in
 * metering/credits.ts when the catalogue names none).
 */
export interface ModelPricing {
  prompt: number;
  completion: number;
  cacheRead?: number;
  cacheWrite?: number;
}

interface ModelBase {
  id: string;
  vendor: string;
  /** 'eu' only when every endpoint is served from the EU; what GET /models shows. */
  region: Region;
  pricing: ModelPricing;
  capabilities: Capability[];
  reasoningEffort: ReasoningEffort[];
  /** In catalogue order, which is the default provider order. */
  endpoints: CatalogEndpoint[];
}

export interface ChatModel extends ModelBase {
  type: 'chat';
  contextLength: number;
  /** What rate limits count for an answer whose request sets no max_tokens (catalogue `max_output_tokens`). */
  maxOutputTokens: number;
  /** Parameters the model refuses whatever provider serves it (catalogue `unsupported_parameters`). */
  unsupportedParameters: readonly UpstreamParameter[];
}

/** A chat model's `max_output_tokens` when the catalogue gives none. */
const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

export interface EmbeddingModel extends ModelBase {
  type: 'embedding';
  dimensions: number;
  /** Whether a smaller `dimensions` may be asked for (native reduction). */
  reducible: boolean;
  maxInputTokens: number;
  /** Inputs per upstream request; larger batches are split. */
  maxBatch: number;
  /** Memory search keeps a passage found by its embedding alone only at or above this cosine similarity (null: any). */
  minSimilarity: number | null;
}

export type CatalogModel = ChatModel | EmbeddingModel;

export interface ServicePrices {
  firewallPer1kTokens: number;
  retrievalPerCall: number;
  ingestPerChunk: number;
}

export interface Catalog {
  providers: Map<string, CatalogProvider>;
  models: Map<string, CatalogModel>;
  /** Alias name → model ids, nested aliases already expanded, duplicates removed. */
  aliases: Map<string, string[]>;
  services: ServicePrices;
  /** Absolute path of the file it was loaded from. */
  file: string;
}

export class CatalogError extends Error {
  override name = 'CatalogError';
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`catalog ${file} is invalid: ${problems.join('; ')}`);
  }
}

// The file's shape once the schema has accepted it (and filled its defaults).
interface RawProvider {
  id: string;
  region: Region;
  kind: ProviderKind;
  base_url?: string;
  api_key?: string;
  profile?: ProviderProfileName;
  timeout_ms: number;
  circuit?: { failures: number; cooldown_ms: number; max_cooldown_ms: number };
}
interface RawModel {
  id: string;
  type: ModelType;
  context_length?: number;
  max_output_tokens?: number;
  unsupported_parameters?: UpstreamParameter[];
  dimensions?: number;
  reducible?: boolean;
  max_input_tokens?: number;
  max_batch?: number;
  min_similarity?: number;
  /** null only when the schema refused it (see loose()). */
  pricing: { prompt: number; completion?: number; cache_read?: number; cache_write?: number } | null;
  capabilities: Capability[];
  reasoning_effort: ReasoningEffort[];
  endpoints: { provider: string; upstream_model: string }[];
}
interface RawCatalog {
  providers: RawProvider[];
  models: RawModel[];
  aliases: Record<string, string[]>;
  services: { firewall_per_1k_tokens: number; retrieval_per_call: number; ingest_per_chunk: number };
}

const MODEL_ID = /^[a-z0-9][a-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const ALIAS_NAME = /^[a-z0-9][a-z0-9._-]*$/;
const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

// Read at run time rather than imported: JSON imports still warn on Node 20, and tsc would have
// to copy the file into dist/ for an import to resolve there.
let validateShape: ValidateFunction | undefined;
function shapeValidator(): ValidateFunction {
  if (!validateShape) {
    const schema = JSON.parse(readFileSync(fromRoot('src/gateway/catalog.schema.json'), 'utf8'));
    validateShape = new Ajv2020({ allErrors: true, useDefaults: true }).compile(schema);
  }
  return validateShape;
}

export function loadCatalog(options: { file?: string; env?: Record<string, string | undefined> } = {}): Catalog {
  const file = resolve(options.file ?? fromRoot('catalog/catalog.yaml'));
  const env = options.env ?? process.env;

  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CatalogError(file, [`the file cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`]);
  }
  const data = parse(file, text);

  const problems: string[] = [];
  const unsetKeys = new Map<number, string[]>(); // provider index → unset variables in its api_key
  const reported = new Set<string>(); // paths already reported as unset, so the schema does not repeat them
  const name = entryNamer(data);
  const expanded = expandEnv(data, [], env, (path, names) => {
    if (path.length === 3 && path[0] === 'providers' && path[2] === 'api_key') {
      unsetKeys.set(Number(path[1]), names);
    } else {
      reported.add(path.join('.'));
      problems.push(`${name(path)} uses ${names.map((n) => '${' + n + '}').join(', ')}, which ${names.length > 1 ? 'are' : 'is'} not set`);
    }
  });

  withBuiltIns(expanded);

  // The shape and the cross-references are checked in one pass, so that one message names every
  // bad field: the cross-references are checked on what the schema let through, and an entry the
  // schema refused is looked at only as far as it can be.
  const validate = shapeValidator();
  if (!validate(expanded)) {
    for (const e of validate.errors ?? []) {
      const at = pointerToPath(e.instancePath);
      if (!reported.has(at.join('.'))) problems.push(describe(e, name(at)));
    }
  }
  const catalog = build(loose(expanded), file, unsetKeys, problems, name);
  if (problems.length > 0) throw new CatalogError(file, [...new Set(problems)]);
  return catalog;
}

/** Memory's vectors are vector(1024) columns: the memory model has these dimensions (memory/embedder.ts). */
export const MEMORY_DIMENSIONS = 1024;

/** Whether an embedding model of MEMORY_DIMENSIONS has an EU endpoint whose provider is available. */
export function isMemoryModel(model: CatalogModel, providers: ReadonlyMap<string, CatalogProvider>): model is EmbeddingModel {
  return (
    model.type === 'embedding' &&
    model.dimensions === MEMORY_DIMENSIONS &&
    model.endpoints.some((e) => e.region === 'eu' && providers.get(e.provider)?.available === true)
  );
}

function memoryModelIn(models: ReadonlyMap<string, CatalogModel>, providers: ReadonlyMap<string, CatalogProvider>): boolean {
  return [...models.values()].some((model) => isMemoryModel(model, providers));
}

// The in-process provider and its models: EU, offline, no key. Every catalogue has them unless it
// declares its own of the same ids, so that the contract's catalogue shape (an alias naming
// local/echo, no embedding model) starts, and memory always has an EU model of 1024 dimensions to
// embed with. Priced small but non-zero, so that metering shows figures in development and tests.
const BUILT_IN_PROVIDER = { id: 'local', region: 'eu', kind: 'local', timeout_ms: 30_000 };
const BUILT_IN_MODELS = [
  {
    id: 'local/echo',
    type: 'chat',
    context_length: 1_048_576,
    pricing: { prompt: 0.01, completion: 0.02 },
    // It takes images (and leaves them out of its echo), so that a request with one can be tried offline.
    capabilities: ['tools', 'json_schema', 'vision'],
    reasoning_effort: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'],
    endpoints: [{ provider: 'local', upstream_model: 'echo' }],
  },
  {
    id: 'local/embed-1024',
    type: 'embedding',
    dimensions: 1024,
    reducible: false,
    max_input_tokens: 8192,
    max_batch: 256,
    // Lexical: texts without a shared word score 0 ± 0.05.
    min_similarity: 0.1,
    pricing: { prompt: 0.001 },
    endpoints: [{ provider: 'local', upstream_model: 'embed-1024' }],
  },
];

/**
 * Adds the built-in provider and models a catalogue does not declare, after its own entries (so
 * that a problem's index names the caller's entry). A provider `local` of another kind keeps the
 * built-in models out: they would name it.
 */
function withBuiltIns(data: unknown): void {
  if (!isObject(data)) return;
  const providers = Array.isArray(data.providers) ? data.providers : undefined;
  const models = Array.isArray(data.models) ? data.models : undefined;
  if (!providers || !models) return;
  const declared = providers.find((p) => isObject(p) && p.id === BUILT_IN_PROVIDER.id);
  if (declared === undefined) providers.push({ ...BUILT_IN_PROVIDER });
  else if (!isObject(declared) || declared.kind !== 'local') return;
  for (const model of BUILT_IN_MODELS) {
    if (!models.some((m) => isObject(m) && m.id === model.id)) models.push(structuredClone(model));
  }
}

/**
 * How a problem names the field: its dotted path, with the id of the provider or model it lies in
 * (`models.15 (local/echo).pricing`), so that no one has to count entries. The id is taken from
 * the file as written, before `${VAR}` expansion, so that no variable's value reaches the message.
 */
type EntryNamer = (path: readonly string[]) => string;
function entryNamer(data: unknown): EntryNamer {
  return (path) => {
    const [list, index, ...rest] = path;
    if ((list === 'providers' || list === 'models') && index !== undefined && isObject(data)) {
      const entries = data[list];
      const entry = Array.isArray(entries) ? entries[Number(index)] : undefined;
      if (isObject(entry) && typeof entry.id === 'string' && entry.id !== '') {
        return [`${list}.${index} (${entry.id})`, ...rest].join('.');
      }
    }
    return path.join('.');
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The parts of a catalogue the schema may have refused, kept to what build() can look at without failing. */
function loose(data: unknown): RawCatalog {
  const root = isObject(data) ? data : {};
  const objects = (value: unknown) => (Array.isArray(value) ? value.map((v) => (isObject(v) ? v : {})) : []);
  const models = objects(root.models).map((m) => ({
    ...m,
    pricing: isObject(m.pricing) ? m.pricing : null, // null: the schema has said what is wrong
    capabilities: Array.isArray(m.capabilities) ? m.capabilities : [],
    reasoning_effort: Array.isArray(m.reasoning_effort) ? m.reasoning_effort : [],
    endpoints: objects(m.endpoints),
  }));
  const aliases = isObject(root.aliases)
    ? Object.fromEntries(Object.entries(root.aliases).map(([k, v]) => [k, Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []]))
    : {};
  return {
    providers: objects(root.providers),
    models,
    aliases,
    services: isObject(root.services) ? root.services : {},
  } as unknown as RawCatalog;
}

/** Replaces aliases by their models in place; keeps order; keeps the first of any duplicate.
 *  Unknown slugs pass through unchanged so the caller can report them in its own terms. */
export function expandChain(catalog: Catalog, slugs: string[]): string[] {
  const chain: string[] = [];
  for (const slug of slugs) {
    for (const id of catalog.aliases.get(slug) ?? [slug]) {
      if (!chain.includes(id)) chain.push(id);
    }
  }
  return chain;
}

export function getModel(catalog: Catalog, id: string): CatalogModel | undefined {
  return catalog.models.get(id);
}

function parse(file: string, text: string): unknown {
  if (extname(file).toLowerCase() === '.json') {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw new CatalogError(file, [jsonSyntaxProblem(text, err as Error)]);
    }
  }
  const doc = parseDocument(text);
  const first = doc.errors[0];
  if (first) {
    // Only the first line of yaml's message: the rest quotes the source, which may hold a key.
    const reason = first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    const pos = first.linePos?.[0];
    throw new CatalogError(file, [`YAML syntax error${pos ? ` at line ${pos.line}, column ${pos.col}` : ''}: ${reason}`]);
  }
  try {
    return doc.toJS();
  } catch (err) {
    throw new CatalogError(file, [`YAML error: ${(err as Error).message.split('\n')[0]}`]);
  }
}

// V8 quotes part of the source in some JSON errors; that part is dropped for the same reason.
function jsonSyntaxProblem(text: string, err: Error): string {
  const reason = err.message.replace(/, ".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '');
  const position = /at position (\d+)/.exec(err.message);
  if (!position) return `JSON syntax error: ${reason}`;
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const col = before.length - before.lastIndexOf('\n');
  return `JSON syntax error at line ${line}, column ${col}: ${reason}`;
}

function expandEnv(
  value: unknown,
  path: string[],
  env: Record<string, string | undefined>,
  onUnset: (path: string[], names: string[]) => void,
): unknown {
  if (typeof value === 'string') {
    const unset: string[] = [];
    // An empty variable counts as unset: `KEY=` in an .env file means "no key", not "empty key".
    const out = value.replace(ENV_REF, (ref, name: string) => {
      const v = env[name];
      if (v === undefined || v === '') {
        unset.push(name);
        return ref;
      }
      return v;
    });
    if (unset.length > 0) onUnset(path, unset);
    return out;
  }
  if (Array.isArray(value)) return value.map((v, i) => expandEnv(v, [...path, String(i)], env, onUnset));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, expandEnv(v, [...path, k], env, onUnset)]),
    );
  }
  return value;
}

function pointerToPath(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function describe(e: ErrorObject, at: string): string {
  const field = (name: string) => (at ? `${at}.${name}` : name);
  switch (e.keyword) {
    case 'required':
      return `${field(e.params.missingProperty as string)} is required`;
    case 'additionalProperties':
      return `${field(e.params.additionalProperty as string)} is not a known field`;
    case 'enum':
      return `${at || 'the document'} must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
    default:
      return `${at || 'the document'} ${e.message ?? 'is invalid'}`;
  }
}

function build(raw: RawCatalog, file: string, unsetKeys: Map<number, string[]>, problems: string[], name: EntryNamer): Catalog {
  const providers = new Map<string, CatalogProvider>();
  raw.providers.forEach((p, i) => {
    const at = name(['providers', String(i)]);
    if (typeof p.id !== 'string') return; // the schema has said so
    if (providers.has(p.id)) problems.push(`${at}.id "${p.id}" is used by an earlier provider`);
    const knownKind = p.kind === 'openai' || p.kind === 'anthropic' || p.kind === 'local';
    if (knownKind && p.kind !== 'local' && p.base_url === undefined) problems.push(`${at}.base_url is required for kind ${p.kind}`);
    if (p.kind === 'local') {
      if (p.base_url !== undefined) problems.push(`${at}.base_url is not used by a local provider`);
      if (p.api_key !== undefined) problems.push(`${at}.api_key is not used by a local provider`);
      if (p.circuit !== undefined) problems.push(`${at}.circuit is not used by a local provider (it runs in the process)`);
    }
    if (knownKind && p.kind !== 'openai' && p.profile !== undefined) problems.push(`${at}.profile is used by OpenAI-compatible providers only (kind openai)`);
    if (isObject(p.circuit) && typeof p.circuit.max_cooldown_ms === 'number' && p.circuit.max_cooldown_ms < p.circuit.cooldown_ms) {
      problems.push(
        `${at}.circuit.max_cooldown_ms (${p.circuit.max_cooldown_ms}) must not be below circuit.cooldown_ms (${p.circuit.cooldown_ms})`,
      );
    }
    const unset = p.kind === 'local' ? undefined : unsetKeys.get(i);
    const provider: CatalogProvider = {
      id: p.id,
      region: p.region,
      kind: p.kind,
      timeoutMs: p.timeout_ms,
      available: unset === undefined,
    };
    if (typeof p.base_url === 'string') provider.baseUrl = p.base_url.replace(/\/+$/, '');
    if (p.kind === 'openai') provider.profile = p.profile ?? profileOfHost(p.base_url);
    if (p.kind !== 'local') {
      provider.circuit = isObject(p.circuit)
        ? { failures: p.circuit.failures, cooldownMs: p.circuit.cooldown_ms, maxCooldownMs: p.circuit.max_cooldown_ms }
        : { ...DEFAULT_CIRCUIT };
    }
    if (unset) provider.unavailableReason = `${unset.join(', ')} ${unset.length > 1 ? 'are' : 'is'} not set`;
    else if (p.api_key !== undefined && p.kind !== 'local') {
      Object.defineProperty(provider, 'apiKey', { value: p.api_key, enumerable: false });
    }
    if (!providers.has(p.id)) providers.set(p.id, provider);
  });

  const models = new Map<string, CatalogModel>();
  raw.models.forEach((m, i) => {
    const at = name(['models', String(i)]);
    if (typeof m.id !== 'string') return; // the schema has said so
    if (!MODEL_ID.test(m.id)) problems.push(`${at}.id must have the form <vendor>/<model>`);
    else if (models.has(m.id)) problems.push(`${at}.id "${m.id}" is used by an earlier model`);
    const vendor = m.id.split('/')[0]!;

    const endpoints: CatalogEndpoint[] = [];
    m.endpoints.forEach((e, j) => {
      const field = `${at}.endpoints.${j}.provider`;
      if (typeof e.provider !== 'string' || typeof e.upstream_model !== 'string') return; // the schema has said so
      const provider = providers.get(e.provider);
      if (!provider) problems.push(`${field} names unknown provider "${e.provider}"`);
      else if (endpoints.some((x) => x.provider === e.provider)) problems.push(`${field} "${e.provider}" is listed twice`);
      else if (provider.kind === 'local' && vendor !== 'local') {
        problems.push(`${field} "${e.provider}" is a local provider, which serves only local/... models`);
      } else if (provider.kind === 'local' && (m.type === 'chat' || m.type === 'embedding') && !localModels(m.type).includes(e.upstream_model)) {
        // It runs in this process: a name it does not have would fail every call, so it is refused at start.
        problems.push(
          `${at}.endpoints.${j}.upstream_model "${e.upstream_model}" is not a local ${m.type} model; ` +
            `the local provider's ${m.type} models are: ${localModels(m.type).join(', ')}`,
        );
      } else endpoints.push({ provider: e.provider, upstreamModel: e.upstream_model, region: provider.region });
    });

    const base = {
      id: m.id,
      vendor,
      region: endpoints.every((e) => e.region === 'eu') ? ('eu' as const) : ('external' as const),
      pricing: {
        prompt: m.pricing?.prompt ?? 0,
        completion: m.pricing?.completion ?? 0,
        ...(m.pricing?.cache_read !== undefined ? { cacheRead: m.pricing.cache_read } : {}),
        ...(m.pricing?.cache_write !== undefined ? { cacheWrite: m.pricing.cache_write } : {}),
      },
      capabilities: m.capabilities,
      reasoningEffort: m.reasoning_effort,
      endpoints,
    };
    if (m.type !== 'chat' && m.type !== 'embedding') return; // the schema has said so
    const own = m.type === 'chat' ? ['context_length'] : ['dimensions', 'reducible'];
    const others =
      m.type === 'chat'
        ? ['dimensions', 'reducible', 'max_input_tokens', 'max_batch', 'min_similarity']
        : ['context_length', 'max_output_tokens', 'unsupported_parameters'];
    const fields = m as unknown as Record<string, unknown>;
    for (const f of own) if (fields[f] === undefined) problems.push(`${at}.${f} is required for ${m.type} models`);
    for (const f of others) if (fields[f] !== undefined) problems.push(`${at}.${f} is not used by ${m.type} models`);

    let model: CatalogModel;
    if (m.type === 'chat') {
      if (m.pricing !== null && m.pricing.completion === undefined) problems.push(`${at}.pricing.completion is required for chat models`);
      model = {
        ...base,
        type: 'chat',
        contextLength: m.context_length ?? 0,
        maxOutputTokens: m.max_output_tokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
        unsupportedParameters: m.unsupported_parameters ?? [],
      };
    } else {
      if (m.reasoning_effort.length > 0) problems.push(`${at}.reasoning_effort is not used by embedding models`);
      const defaults = embeddingLimitDefaults(m.endpoints.map((e) => providers.get(e.provider)?.kind ?? 'openai'));
      model = {
        ...base,
        type: 'embedding',
        dimensions: m.dimensions ?? 0,
        reducible: m.reducible ?? false,
        maxInputTokens: m.max_input_tokens ?? defaults.maxInputTokens,
        maxBatch: m.max_batch ?? defaults.maxBatch,
        minSimilarity: m.min_similarity ?? DEFAULT_MIN_SIMILARITY[m.id] ?? null,
      };
    }
    if (!models.has(m.id)) models.set(m.id, model);
  });
  if (problems.length === 0 && !memoryModelIn(models, providers)) {
    problems.push(
      `models has no available EU embedding model of ${MEMORY_DIMENSIONS} dimensions, which memory (documents, facts, retrieval) embeds with; ` +
        'the built-in local/embed-1024 is one, unless the catalogue declares a provider "local" of another kind',
    );
  }

  return {
    providers,
    models,
    aliases: expandAliases(raw.aliases, models, problems),
    services: {
      firewallPer1kTokens: raw.services.firewall_per_1k_tokens,
      retrievalPerCall: raw.services.retrieval_per_call,
      ingestPerChunk: raw.services.ingest_per_chunk,
    },
    file,
  };
}

/** The models the local provider (kind local) runs in the process, by type (providers/local/adapter.ts). */
function localModels(type: ModelType): readonly string[] {
  return type === 'chat' ? LOCAL_CHAT_MODELS : LOCAL_EMBEDDING_MODELS;
}

/** The tightest default limits among the wire formats a model's endpoints speak, so that every endpoint takes the batches. */
function embeddingLimitDefaults(kinds: readonly ProviderKind[]): { maxInputTokens: number; maxBatch: number } {
  const limits = kinds.map((k) => EMBEDDING_LIMIT_DEFAULTS[k] ?? EMBEDDING_LIMIT_DEFAULTS.openai);
  return {
    maxInputTokens: Math.min(...limits.map((l) => l.maxInputTokens)),
    maxBatch: Math.min(...limits.map((l) => l.maxBatch)),
  };
}

function expandAliases(raw: Record<string, string[]>, models: Map<string, CatalogModel>, problems: string[]): Map<string, string[]> {
  const done = new Map<string, string[]>();
  const visiting: string[] = [];

  const expand = (name: string): string[] => {
    const known = done.get(name);
    if (known) return known;
    if (visiting.includes(name)) {
      const cycle = [...visiting.slice(visiting.indexOf(name)), name];
      problems.push(`aliases.${cycle[0]} is part of a cycle (${cycle.join(' → ')})`);
      return [];
    }
    visiting.push(name);
    const out: string[] = [];
    raw[name]!.forEach((member, i) => {
      const ids = models.has(member) ? [member] : Object.hasOwn(raw, member) ? expand(member) : undefined;
      if (!ids) problems.push(`aliases.${name}.${i} names unknown model or alias "${member}"`);
      else for (const id of ids) if (!out.includes(id)) out.push(id);
    });
    visiting.pop();
    done.set(name, out);
    return out;
  };

  for (const name of Object.keys(raw)) {
    if (!ALIAS_NAME.test(name)) {
      problems.push(`aliases.${name} must be lowercase letters, digits, '.', '_' or '-' (no '/', which marks a model id)`);
      continue;
    }
    const ids = expand(name);
    const types = new Set(ids.map((id) => models.get(id)!.type));
    if (types.size > 1) problems.push(`aliases.${name} mixes chat and embedding models`);
  }
  // Rebuilt so the map follows the file's order, not the order the recursion finished in.
  return new Map(Object.keys(raw).flatMap((name) => (done.has(name) ? [[name, done.get(name)!] as const] : [])));
}
