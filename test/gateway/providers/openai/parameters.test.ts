import { expect } from 'chai';
import {
  ALL_PARAMETERS,
  compileProfile,
  ProfileRegistry,
  PROVIDER_PROFILES,
} from '../../../../src/gateway/providers/openai/parameters.js';
import { buildChatBody, buildEmbeddingBody } from '../../../../src/gateway/providers/openai/request.js';
import type { ProviderProfileName } from '../../../../src/gateway/catalog.js';
import { upstreamRequestOf } from '../../../../src/gateway/chatRequest.js';
import type { UpstreamChatRequest } from '../../../../src/gateway/providers/types.js';

const profiles = new ProfileRegistry();

const everything: UpstreamChatRequest = {
  messages: [
    { role: 'developer', content: 'be brief' },
    { role: 'user', content: 'hi', name: 'alice' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', function: { name: 'f', arguments: '{}' } }] },
    { role: 'tool', content: '42', tool_call_id: 'c1', name: 'f' },
  ],
  temperature: 0.5,
  max_tokens: 100,
  max_completion_tokens: 200,
  top_p: 0.9,
  stop: ['END'],
  presence_penalty: 0.1,
  frequency_penalty: 0.2,
  n: 1,
  seed: 7,
  logit_bias: { '50256': -100 },
  logprobs: true,
  top_logprobs: 2,
  tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
  tool_choice: 'auto',
  parallel_tool_calls: false,
  reasoning_effort: 'high',
  response_format: { type: 'json_object' },
  user: 'end-user-1',
};

function body(profile: ProviderProfileName, request: UpstreamChatRequest, stream = false): Record<string, unknown> {
  return JSON.parse(buildChatBody(profiles.get(profile), 'upstream-model', request, stream));
}

describe('openai adapter: parameter map', () => {
  it('lists every parameter once', () => {
    expect(new Set(ALL_PARAMETERS).size).to.equal(ALL_PARAMETERS.length);
    expect(ALL_PARAMETERS).to.have.length(19);
  });

  it('openai takes every OpenAI parameter, sends max_tokens as max_completion_tokens, and keeps developer', () => {
    expect([...profiles.get('openai').supported].sort()).to.deep.equal(ALL_PARAMETERS.filter((p) => p !== 'top_k').sort());
    // top_k is no OpenAI parameter: no OpenAI-compatible profile claims it.
    for (const name of ['generic', 'mistral', 'scaleway', 'anthropic-openai'] as const) expect(profiles.get(name).supported.has('top_k'), name).to.equal(false);
    const b = body('openai', everything);
    expect(b.model).to.equal('upstream-model');
    // Both given: the field sent under its own name wins.
    expect(b.max_completion_tokens).to.equal(200);
    expect(b).not.to.have.property('max_tokens');
    expect(b.logit_bias).to.deep.equal({ '50256': -100 });
    expect((b.messages as { role: string }[]).map((m) => m.role)).to.deep.equal(['developer', 'user', 'assistant', 'tool']);
    expect(body('openai', { messages: [], max_tokens: 5 }).max_completion_tokens).to.equal(5);
  });

  it('mistral: drops what it refuses, renames seed and max_completion_tokens, developer → system, no names', () => {
    const supported = profiles.get('mistral').supported;
    for (const p of ['logit_bias', 'logprobs', 'top_logprobs', 'user'] as const) expect(supported.has(p), p).to.equal(false);
    for (const p of ['reasoning_effort', 'seed', 'max_completion_tokens', 'tools', 'response_format'] as const) {
      expect(supported.has(p), p).to.equal(true);
    }
    const b = body('mistral', everything);
    expect(Object.keys(b)).to.include.members(['random_seed', 'max_tokens', 'reasoning_effort']);
    for (const k of ['seed', 'max_completion_tokens', 'logit_bias', 'logprobs', 'top_logprobs', 'user']) expect(b).not.to.have.property(k);
    // max_tokens given under its own name wins over the renamed max_completion_tokens.
    expect(b.max_tokens).to.equal(100);
    expect(body('mistral', { messages: [], max_completion_tokens: 9 }).max_tokens).to.equal(9);
    expect(b.messages).to.deep.equal([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', content: '42', tool_call_id: 'c1', name: 'f' },
    ]);
  });

  it('mistral streams do not send stream_options; others ask for usage', () => {
    const m = body('mistral', { messages: [] }, true);
    expect(m.stream).to.equal(true);
    expect(m).not.to.have.property('stream_options');
    const o = body('openai', { messages: [] }, true);
    expect(o.stream_options).to.deep.equal({ include_usage: true });
    const other = body('generic', { messages: [] }, true);
    expect(other.stream_options).to.deep.equal({ include_usage: true });
  });

  it('anthropic drops what its compatible endpoint ignores and maps developer → system', () => {
    const supported = profiles.get('anthropic-openai').supported;
    for (const p of ['logit_bias', 'logprobs', 'top_logprobs', 'seed', 'presence_penalty', 'frequency_penalty'] as const) {
      expect(supported.has(p), p).to.equal(false);
    }
    const b = body('anthropic-openai', everything);
    expect(b).to.include.keys('temperature', 'max_tokens', 'max_completion_tokens', 'tools', 'tool_choice', 'stop');
    expect(b).not.to.have.any.keys('logit_bias', 'logprobs', 'top_logprobs', 'seed', 'presence_penalty', 'frequency_penalty');
    expect((b.messages as { role: string }[])[0]!.role).to.equal('system');
  });

  it('the generic profile serves other hosts (vLLM, Ollama, …), and is what a provider without one gets', () => {
    expect(profiles.get().supported).to.deep.equal(compileProfile('x', PROVIDER_PROFILES.generic).supported);
    const b = body('generic', { messages: [{ role: 'developer', content: 'x' }], max_completion_tokens: 3 });
    expect(b.max_tokens).to.equal(3);
    expect((b.messages as { role: string }[])[0]!.role).to.equal('system');
  });

  it('never sends fields it does not know, nor null ones', () => {
    const request = { messages: [{ role: 'user', content: 'x', extra: 1 }], temperature: null, tenant: 't', firewall: false };
    const b = body('openai', request as unknown as UpstreamChatRequest);
    expect(b).to.deep.equal({ model: 'upstream-model', messages: [{ role: 'user', content: 'x' }] });
  });

  it('overrides replace a profile', () => {
    const registry = new ProfileRegistry({ openai: { ...PROVIDER_PROFILES.openai!, parameters: { temperature: { to: 'temp', transform: (v) => Number(v) * 2 } } } });
    const b = JSON.parse(buildChatBody(registry.get('openai'), 'm', { messages: [], temperature: 0.5, top_p: 1 }, false));
    expect(b).to.deep.equal({ model: 'm', messages: [], temp: 1 });
  });

  it('sends the same cap to every profile when a request gives both max_tokens and max_completion_tokens', () => {
    const { request } = upstreamRequestOf({ model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10, max_completion_tokens: 20 } as never);
    expect(request).not.to.have.property('max_tokens');
    for (const profile of ['openai', 'mistral', 'anthropic-openai', 'generic'] as const) {
      const sent = body(profile, request);
      expect(sent.max_tokens ?? sent.max_completion_tokens, profile).to.equal(20);
    }
  });

  it('builds embedding bodies with the provider’s name for dimensions', () => {
    const input = { input: ['a', 'b'], dimensions: 256, user: 'u' };
    expect(JSON.parse(buildEmbeddingBody(profiles.get('openai'), 'e', input))).to.deep.equal({
      model: 'e',
      input: ['a', 'b'],
      encoding_format: 'float',
      dimensions: 256,
      user: 'u',
    });
    expect(JSON.parse(buildEmbeddingBody(profiles.get('mistral'), 'e', input))).to.deep.equal({
      model: 'e',
      input: ['a', 'b'],
      encoding_format: 'float',
      output_dimension: 256,
    });
  });
});
