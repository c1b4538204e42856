// The declarative parameter map: which request parameters each OpenAI-compatible provider
// takes, under which name, and how its messages and streams differ from OpenAI's. Keyed by the
// catalogue provider's `profile` (catalog.ts: named there or known from the host, never from the
// provider's id); `generic` serves vLLM, Ollama, llama.cpp and any other OpenAI-compatible host.
//
// A parameter missing from a profile is not sent: supportedParameters() reports it as not
// taken, so the gateway drops it (noted on the trace) or, in strict mode, answers 422. Sources
// are the providers' own API references; several of these hosts (Mistral above all) reject
// unknown fields with a 422, so the maps list what is accepted, not what is merely ignored.
import type { ProviderProfileName } from '../../catalog.js';
import { ALL_PARAMETERS, type ParameterLimits, type UpstreamParameter } from '../types.js';

export { ALL_PARAMETERS };

/** How one parameter goes on the wire: as it is (`true`), or renamed and/or transformed. */
export type ParameterRule = true | { readonly to?: string; readonly transform?: (value: unknown) => unknown };

export interface ProviderProfile {
  /** The parameters the provider takes. */
  readonly parameters: { readonly [P in UpstreamParameter]?: ParameterRule };
  /** Where it takes less of one than a request may give. */
  readonly limits?: ParameterLimits;
  /** What a `developer` message becomes (providers without that role take it as `system`). */
  readonly developerRole: 'developer' | 'system';
  /** Whether system/user/assistant messages may carry `name` (a tool message always keeps its own). */
  readonly messageNames: boolean;
  /**
   * Whether a stream asks for usage with `stream_options: {include_usage: true}`. False for a
   * provider that rejects the field and reports usage on its last chunk unasked.
   */
  readonly streamOptions: boolean;
  /**
   * How it is asked to continue a final assistant message (a prefill): `prefix` marks that message
   * `prefix: true` (Mistral refuses one unmarked). Absent: it is sent as a finished turn.
   */
  readonly prefill?: 'prefix';
  readonly embeddings: {
    /** The wire name of `dimensions`. */
    readonly dimensions: string;
    readonly user: boolean;
  };
}


// Parameters OpenAI's API does not define. Some hosts take one as an extension (vLLM and llama.cpp
// take top_k), but others refuse fields they do not know: a profile takes one only by naming it.
const NOT_OPENAI: readonly UpstreamParameter[] = ['top_k'];

/** Every OpenAI parameter as it is, minus `except`, with `rules` on top (which may add one of NOT_OPENAI). */
function allBut(
  except: readonly UpstreamParameter[],
  rules: { readonly [P in UpstreamParameter]?: ParameterRule } = {},
): ProviderProfile['parameters'] {
  const out: { [P in UpstreamParameter]?: ParameterRule } = {};
  for (const p of ALL_PARAMETERS) {
    if (except.includes(p) || (NOT_OPENAI.includes(p) && rules[p] === undefined)) continue;
    out[p] = rules[p] ?? true;
  }
  return out;
}

/** OpenAI-compatible hosts we have no entry for: vLLM, Ollama, llama.cpp, LocalAI, … */
const GENERIC_PROFILE: ProviderProfile = {
  // Every open server takes max_tokens; not all know max_completion_tokens yet.
  parameters: allBut([], { max_completion_tokens: { to: 'max_tokens' } }),
  // Many open-weight chat templates know no `developer` role.
  developerRole: 'system',
  messageNames: true,
  streamOptions: true,
  embeddings: { dimensions: 'dimensions', user: true },
};

export const PROVIDER_PROFILES: Readonly<Record<ProviderProfileName, ProviderProfile>> = {
  generic: GENERIC_PROFILE,

  // api.openai.com takes everything. Its reasoning models refuse max_tokens ("use
  // max_completion_tokens instead"), which every current model takes, so it is sent as that.
  openai: {
    parameters: allBut([], { max_tokens: { to: 'max_completion_tokens' } }),
    // "Up to 4 sequences"; more is a 400. (The Messages door takes any number, as Anthropic does.)
    limits: { stop: 4 },
    developerRole: 'developer',
    messageNames: true,
    streamOptions: true,
    embeddings: { dimensions: 'dimensions', user: true },
  },

  // Mistral (La Plateforme) forbids unknown fields (422 "Extra inputs are not permitted"),
  // including stream_options (usage comes on the last chunk anyway), max_completion_tokens,
  // `user`, and `name` on non-tool messages. Its seed is `random_seed`. reasoning_effort is
  // passed for the models the catalogue lists levels for (the gateway checks them).
  mistral: {
    parameters: allBut(['logit_bias', 'logprobs', 'top_logprobs', 'user'], {
      max_completion_tokens: { to: 'max_tokens' },
      seed: { to: 'random_seed' },
    }),
    developerRole: 'system',
    messageNames: false,
    streamOptions: false,
    prefill: 'prefix',
    embeddings: { dimensions: 'output_dimension', user: false },
  },

  // Anthropic's OpenAI-compatible endpoint ignores these silently; claiming them would let a
  // strict-mode request believe they had effect (response_format and reasoning_effort included:
  // the catalogue lists no json_schema and no reasoning levels for Claude there). `n` must be 1,
  // which the provider checks itself.
  'anthropic-openai': {
    parameters: allBut([
      'logit_bias',
      'logprobs',
      'top_logprobs',
      'seed',
      'presence_penalty',
      'frequency_penalty',
      'user',
      'response_format',
      'reasoning_effort',
    ]),
    developerRole: 'system',
    messageNames: true,
    streamOptions: true,
    embeddings: { dimensions: 'dimensions', user: false },
  },

  // Scaleway Generative APIs: its reference lists frequency_penalty, n, top_logprobs,
  // logit_bias and user as unsupported.
  scaleway: {
    parameters: allBut(['frequency_penalty', 'n', 'top_logprobs', 'logit_bias', 'user'], {
      max_completion_tokens: { to: 'max_tokens' },
    }),
    developerRole: 'system',
    messageNames: true,
    streamOptions: true,
    embeddings: { dimensions: 'dimensions', user: false },
  },
};

const NO_LIMITS: ParameterLimits = Object.freeze({});

/** A profile prepared for the hot path: the fields to copy as an array, the supported set built once. */
export interface CompiledProfile {
  readonly id: string;
  readonly supported: ReadonlySet<UpstreamParameter>;
  readonly limits: ParameterLimits;
  /** Renamed fields first, so a field sent under its own name wins when two land on one name. */
  readonly fields: readonly { readonly from: UpstreamParameter; readonly to: string; readonly transform?: (value: unknown) => unknown }[];
  readonly developerRole: 'developer' | 'system';
  readonly messageNames: boolean;
  readonly streamOptions: boolean;
  readonly prefill: ProviderProfile['prefill'];
  readonly embeddings: ProviderProfile['embeddings'];
}

export function compileProfile(id: string, profile: ProviderProfile): CompiledProfile {
  const renamed: CompiledProfile['fields'][number][] = [];
  const direct: CompiledProfile['fields'][number][] = [];
  const supported = new Set<UpstreamParameter>();
  for (const p of ALL_PARAMETERS) {
    const rule = profile.parameters[p];
    if (rule === undefined) continue;
    supported.add(p);
    if (rule === true) direct.push({ from: p, to: p });
    else {
      const to = rule.to ?? p;
      const field = rule.transform ? { from: p, to, transform: rule.transform } : { from: p, to };
      (to === p ? direct : renamed).push(field);
    }
  }
  return {
    id,
    supported,
    limits: profile.limits ?? NO_LIMITS,
    fields: [...renamed, ...direct],
    developerRole: profile.developerRole,
    messageNames: profile.messageNames,
    streamOptions: profile.streamOptions,
    prefill: profile.prefill,
    embeddings: profile.embeddings,
  };
}

/**
 * Compiles each profile once. `overrides` replace profiles (an operator's fork, tests); a
 * provider without a profile (a hand-built one in a test) is generic.
 */
export class ProfileRegistry {
  private readonly compiled = new Map<ProviderProfileName, CompiledProfile>();
  private readonly profiles: Readonly<Record<ProviderProfileName, ProviderProfile>>;

  constructor(overrides: Partial<Record<ProviderProfileName, ProviderProfile>> = {}) {
    this.profiles = { ...PROVIDER_PROFILES, ...overrides };
  }

  get(name: ProviderProfileName = 'generic'): CompiledProfile {
    let c = this.compiled.get(name);
    if (!c) {
      c = compileProfile(name, this.profiles[name]);
      this.compiled.set(name, c);
    }
    return c;
  }
}
