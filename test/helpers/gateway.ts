import { startTestApp, type TestApp } from './app.js';
import { closedPortUrl, startStubProvider, type StubProvider } from './stubProvider.js';
import { LOCAL_EMBED_MODEL, SERVICES, loadTestCatalog } from './catalog.js';

// A gateway in front of stub providers on loopback: two EU providers (eu-a, eu-b), one external
// (ext), one whose address refuses connections (eu-down), and one whose key is not configured.

export interface GatewayFixture {
  app: TestApp;
  euA: StubProvider;
  euB: StubProvider;
  ext: StubProvider;
  /** An organization key of the default workspace (org "acme", workspace "main"). */
  key: string;
  close(): Promise<void>;
}

export const TIMEOUT_MS = 400;

/**
 * The gateway fixture of a describe block: started (with a worker when asked) before its tests,
 * closed after them, the EU stubs reset before each test. The object is filled in by the `before`
 * hook, so read it only inside tests and hooks.
 */
export function useGatewayFixture(options: { env?: NodeJS.ProcessEnv; worker?: boolean } = {}): GatewayFixture {
  const fixture = {} as GatewayFixture;
  before(async () => {
    Object.assign(fixture, await startGatewayFixture({ env: options.env }));
    if (options.worker) await fixture.app.startWorker();
  });
  after(async () => {
    await fixture.close?.();
  });
  beforeEach(() => {
    fixture.euA.reset();
    fixture.euB.reset();
  });
  return fixture;
}

export async function startGatewayFixture({ env }: { env?: NodeJS.ProcessEnv } = {}): Promise<GatewayFixture> {
  const [euA, euB, ext] = await Promise.all([startStubProvider(), startStubProvider(), startStubProvider({ dimensions: 1536 })]);
  const down = await closedPortUrl();
  const yaml = `
providers:
  - {id: eu-a, region: eu, kind: openai, base_url: "${euA.url}", api_key: "\${STUB_KEY}", timeout_ms: ${TIMEOUT_MS}}
  - {id: eu-b, region: eu, kind: openai, base_url: "${euB.url}", api_key: "\${STUB_KEY}", timeout_ms: ${TIMEOUT_MS}}
  - {id: eu-down, region: eu, kind: openai, base_url: "${down}", api_key: "\${STUB_KEY}", timeout_ms: ${TIMEOUT_MS}}
  - {id: eu-nokey, region: eu, kind: openai, base_url: "${euA.url}", api_key: "\${UNSET_STUB_KEY}", timeout_ms: ${TIMEOUT_MS}}
  - {id: ext, region: external, kind: openai, base_url: "${ext.url}", api_key: "\${STUB_KEY}", timeout_ms: ${TIMEOUT_MS}}
  - {id: local, region: eu, kind: local}
models:
  - id: test/chat-a
    type: chat
    context_length: 32000
    pricing: {prompt: 1, completion: 2}
    capabilities: [tools, json_schema, vision]
    reasoning_effort: [low, high]
    endpoints:
      - {provider: eu-a, upstream_model: chat-a-upstream}
      - {provider: eu-b, upstream_model: chat-a-on-b}
  - id: test/chat-b
    type: chat
    context_length: 32000
    pricing: {prompt: 0.5, completion: 1}
    endpoints:
      - {provider: eu-b, upstream_model: chat-b-upstream}
  - id: test/flaky
    type: chat
    context_length: 32000
    pricing: {prompt: 1, completion: 1}
    endpoints:
      - {provider: eu-down, upstream_model: flaky}
      - {provider: eu-nokey, upstream_model: flaky}
      - {provider: eu-b, upstream_model: flaky-on-b}
  - id: test/long
    type: chat
    context_length: 2000000
    pricing: {prompt: 0.01, completion: 0.01}
    unsupported_parameters: [temperature, top_p]
    endpoints:
      - {provider: eu-a, upstream_model: long-upstream}
  - id: test/vast
    type: chat
    context_length: 4000000000
    pricing: {prompt: 0.01, completion: 0.01}
    endpoints:
      - {provider: eu-b, upstream_model: vast-upstream}
  - id: test/external
    type: chat
    context_length: 32000
    pricing: {prompt: 3, completion: 6}
    capabilities: [tools, json_schema]
    endpoints:
      - {provider: ext, upstream_model: ext-upstream}
  - id: test/mixed
    type: chat
    context_length: 32000
    pricing: {prompt: 1, completion: 1}
    endpoints:
      - {provider: ext, upstream_model: mixed-ext}
      - {provider: eu-b, upstream_model: mixed-eu}
  - id: local/echo
    type: chat
    context_length: 1048576
    pricing: {prompt: 0.01, completion: 0.02}
    capabilities: [tools, json_schema]
    reasoning_effort: [none, minimal, low, medium, high, xhigh, max]
    endpoints:
      - {provider: local, upstream_model: echo}
${LOCAL_EMBED_MODEL}
  - id: test/ext-embed
    type: embedding
    dimensions: 1536
    reducible: true
    max_input_tokens: 8192
    max_batch: 2
    pricing: {prompt: 0.02}
    endpoints:
      - {provider: ext, upstream_model: text-embedding-3-small}
  - id: test/eu-embed
    type: embedding
    dimensions: 8
    reducible: false
    max_input_tokens: 50
    max_batch: 2
    pricing: {prompt: 0.1}
    endpoints:
      - {provider: eu-a, upstream_model: eu-embed}
      - {provider: eu-b, upstream_model: eu-embed-on-b}
aliases:
  test-chain: [test/chat-a, test/chat-b]
${SERVICES}
`;
  const { catalog } = loadTestCatalog(yaml, { STUB_KEY: 'sk-stub-secret' });
  const app = await startTestApp({ catalog, ...(env ? { env } : {}) });
  const key = (await app.key()).key;
  return {
    app,
    euA,
    euB,
    ext,
    key,
    async close() {
      await app.close();
      await Promise.all([euA.close(), euB.close(), ext.close()]);
    },
  };
}

let bodies = 0;

/** A chat body whose message is new every time, so the response cache never answers it by accident. */
export function chatBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  bodies += 1;
  return { model: 'test/chat-a', messages: [{ role: 'user', content: `Hallo ${bodies}` }], ...extra };
}

/** Reads a Server-Sent Events response into its data payloads ([DONE] kept as the string). */
export async function readSse(response: Response): Promise<(Record<string, any> | '[DONE]')[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => {
      const data = block.slice('data: '.length);
      return data === '[DONE]' ? '[DONE]' : JSON.parse(data);
    });
}

export async function postChat(
  fixture: { app: TestApp; key: string },
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  key = fixture.key,
): Promise<Response> {
  return fetch(`${fixture.app.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}
