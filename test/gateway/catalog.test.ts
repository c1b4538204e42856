import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CatalogError, expandChain, getModel, loadCatalog, type Catalog } from '../../src/gateway/catalog.js';
import { memoryEmbeddingModel } from '../../src/memory/embedder.js';
import { fromRoot } from '../../src/paths.js';

const fixture = (name: string) => fromRoot('test/fixtures/catalog', name);

// Catalogues that are easier to read inline than as fixture files.
const scratch = mkdtempSync(join(tmpdir(), 'polder-catalog-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
function writeScratch(name: string, text: string): string {
  const file = join(scratch, name);
  writeFileSync(file, text);
  return file;
}

/** Loads a file that must fail and returns the CatalogError's message. */
function failure(file: string, env: Record<string, string | undefined> = {}): string {
  try {
    loadCatalog({ file, env });
  } catch (err) {
    expect(err).to.be.instanceOf(CatalogError);
    expect((err as Error).name).to.equal('CatalogError');
    return (err as Error).message;
  }
  throw new Error(`${file} loaded, but it should not have`);
}

describe('catalog', () => {
  describe('the bundled catalogue', () => {
    const allKeys = {
      MISTRAL_API_KEY: 'mistral-key',
      SCW_SECRET_KEY: 'scw-key',
      OPENAI_API_KEY: 'openai-key',
      ANTHROPIC_API_KEY: 'anthropic-key',
    };
    let catalog: Catalog;
    before(() => {
      catalog = loadCatalog({ env: allKeys });
    });

    it('loads from catalog/catalog.yaml by default', () => {
      expect(catalog.file).to.equal(fromRoot('catalog/catalog.yaml'));
    });

    it('holds every model the contract and the tests rely on', () => {
      for (const id of [
        'mistral/mistral-large-latest',
        'mistral/mistral-medium-latest',
        'mistral/mistral-small-latest',
        'mistral/magistral-medium-latest',
        'openai/gpt-4.1',
        'openai/gpt-4.1-mini',
        'openai/gpt-5',
        'openai/o4-mini',
        'anthropic/claude-sonnet-4-5',
        'mistral/mistral-embed',
        'openai/text-embedding-3-small',
        'openai/text-embedding-3-large',
        'local/echo',
        'local/embed-1024',
      ]) {
        expect(getModel(catalog, id), id).to.not.equal(undefined);
      }
    });

    it('describes the embedding models as the interface does', () => {
      const expected = {
        'mistral/mistral-embed': { region: 'eu', dimensions: 1024, reducible: false },
        'openai/text-embedding-3-small': { region: 'external', dimensions: 1536, reducible: true },
        'openai/text-embedding-3-large': { region: 'external', dimensions: 3072, reducible: true },
        'local/embed-1024': { region: 'eu', dimensions: 1024, reducible: false },
      };
      for (const [id, want] of Object.entries(expected)) {
        const m = getModel(catalog, id);
        if (m?.type !== 'embedding') throw new Error(`${id} is not an embedding model`);
        expect({ region: m.region, dimensions: m.dimensions, reducible: m.reducible }, id).to.deep.equal(want);
        expect(m.maxInputTokens).to.be.greaterThan(0);
        expect(m.maxBatch).to.be.greaterThan(0);
      }
    });

    it('gives local/echo tools, json_schema, reasoning levels and a non-zero price', () => {
      const echo = getModel(catalog, 'local/echo');
      if (echo?.type !== 'chat') throw new Error('local/echo is not a chat model');
      expect(echo.region).to.equal('eu');
      expect(echo.capabilities).to.include.members(['tools', 'json_schema']);
      expect(echo.reasoningEffort).to.include.members(['none', 'low', 'high']);
      expect(echo.pricing.prompt).to.be.greaterThan(0);
      expect(echo.pricing.completion).to.be.greaterThan(0);
      expect(echo.endpoints).to.deep.equal([{ provider: 'local', upstreamModel: 'echo', region: 'eu' }]);
    });

    it('has the service prices', () => {
      expect(catalog.services).to.deep.equal({ firewallPer1kTokens: 0.01, retrievalPerCall: 0.05, ingestPerChunk: 0.02 });
    });

    it('expands the eu-fast alias', () => {
      expect(catalog.aliases.get('eu-fast')).to.deep.equal(['mistral/mistral-small-latest', 'local/echo']);
    });

    it('loads with no keys at all: the external providers are unavailable, local is not', () => {
      const bare = loadCatalog({ env: {} });
      expect(bare.providers.get('mistral')).to.include({ available: false, unavailableReason: 'MISTRAL_API_KEY is not set' });
      expect(bare.providers.get('openai')?.available).to.equal(false);
      expect(bare.providers.get('local')?.available).to.equal(true);
      expect(getModel(bare, 'mistral/mistral-embed')).to.not.equal(undefined);
    });
  });

  describe('${VAR} expansion and availability', () => {
    const env = { EU_HOST_URL: 'https://eu.example.com', EU_HOST_KEY: 'eu-secret', US_HOST_KEY: 'us-secret' };

    it('loads a JSON catalogue and expands variables in any string', () => {
      const c = loadCatalog({ file: fixture('valid.json'), env });
      const eu = c.providers.get('eu-host')!;
      expect(eu.baseUrl).to.equal('https://eu.example.com/v1');
      expect(eu.apiKey).to.equal('eu-secret');
      expect(eu.available).to.equal(true);
      expect(eu.timeoutMs).to.equal(60000);
      expect(c.providers.get('us-host')!.timeoutMs).to.equal(5000);
    });

    it('keeps endpoints in catalogue order and derives the model region from them', () => {
      const c = loadCatalog({ file: fixture('valid.json'), env });
      const small = getModel(c, 'acme/chat-small')!;
      expect(small.endpoints.map((e) => [e.provider, e.upstreamModel, e.region])).to.deep.equal([
        ['eu-host', 'chat-small-v1', 'eu'],
        ['us-host', 'chat-small', 'external'],
      ]);
      expect(small.region).to.equal('external');
      expect(getModel(c, 'acme/chat-eu')!.region).to.equal('eu');
      expect(small.vendor).to.equal('acme');
      expect(small.reasoningEffort).to.deep.equal(['low', 'high']);
      expect(getModel(c, 'acme/chat-eu')!.capabilities).to.deep.equal([]);
      expect(getModel(c, 'acme/embed')!.pricing).to.deep.equal({ prompt: 0.05, completion: 0 });
    });

    it('marks a provider whose key variable is unset unavailable, and still lists its models', () => {
      const c = loadCatalog({ file: fixture('valid.json'), env: { EU_HOST_URL: 'https://eu.example.com', US_HOST_KEY: 'us' } });
      const eu = c.providers.get('eu-host')!;
      expect(eu.available).to.equal(false);
      expect(eu.unavailableReason).to.equal('EU_HOST_KEY is not set');
      expect(eu.apiKey).to.equal(undefined);
      expect(getModel(c, 'acme/chat-eu')).to.not.equal(undefined);
    });

    it('treats an empty key variable as unset', () => {
      const c = loadCatalog({ file: fixture('valid.json'), env: { ...env, EU_HOST_KEY: '' } });
      expect(c.providers.get('eu-host')!.available).to.equal(false);
    });

    it('keeps the key out of JSON and of object spreads', () => {
      const c = loadCatalog({ file: fixture('valid.json'), env });
      const eu = c.providers.get('eu-host')!;
      expect(JSON.stringify(eu)).to.not.include('eu-secret');
      expect(JSON.stringify({ ...eu })).to.not.include('eu-secret');
    });

    it('refuses an unset variable outside api_key, naming the field and the variable', () => {
      const message = failure(fixture('unset-base-url.yaml'), { EU_HOST_KEY: 'k' });
      // By its place and its entry's id, as every other problem (README).
      expect(message).to.include('providers.0 (eu-host).base_url uses ${EU_HOST_URL}, which is not set');
    });
  });

  describe('broken catalogues', () => {
    it('names the file', () => {
      expect(failure(fixture('wrong-type.yaml'))).to.include(`catalog ${fixture('wrong-type.yaml')} is invalid:`);
    });

    it('a value of the wrong type', () => {
      expect(failure(fixture('wrong-type.yaml'))).to.include('models.0 (acme/chat).pricing.prompt must be number');
    });

    it('an unknown region', () => {
      expect(failure(fixture('unknown-region.yaml'))).to.include('providers.0 (eu-host).region must be one of eu, external');
    });

    it('an endpoint naming a missing provider', () => {
      expect(failure(fixture('missing-provider.yaml'))).to.include('models.0 (acme/chat).endpoints.0.provider names unknown provider "nowhere"');
    });

    it('an alias naming an unknown model', () => {
      expect(failure(fixture('unknown-alias-member.yaml'))).to.include('aliases.fast.1 names unknown model or alias "acme/ghost"');
    });

    it('aliases that form a cycle', () => {
      expect(failure(fixture('alias-cycle.yaml'))).to.match(/aliases\.(fast|slow) is part of a cycle/);
    });

    it('one that leaves memory no EU embedding model of 1024 dimensions (a provider "local" of another kind keeps the built-in out)', () => {
      const file = writeScratch(
        'no-memory-model.yaml',
        `providers:
  - {id: local, region: eu, kind: openai, base_url: "https://llm.example.eu/v1", api_key: "k", timeout_ms: 1000}
models:
  - {id: local/chat, type: chat, context_length: 8192, pricing: {prompt: 1, completion: 1}, endpoints: [{provider: local, upstream_model: c}]}
aliases: {}
services: {firewall_per_1k_tokens: 0.01, retrieval_per_call: 0.05, ingest_per_chunk: 0.02}
`,
      );
      expect(failure(file)).to.include('no available EU embedding model of 1024 dimensions');
    });

    it('a YAML syntax error, by line', () => {
      expect(failure(fixture('syntax-error.yaml'))).to.match(/YAML syntax error at line \d+, column \d+/);
    });

    it('every problem at once', () => {
      const message = failure(fixture('many-errors.yaml'));
      for (const field of [
        'providers.0 (eu-host).region must be one of',
        'providers.0 (eu-host).kind must be one of openai, anthropic, local',
        'providers.0 (eu-host).colour is not a known field',
        'models.0 (acme/chat).context_length must be integer',
        'models.0 (acme/chat).pricing.prompt must be >= 0',
      ]) {
        expect(message).to.include(field);
      }
    });

    it('a file that does not exist', () => {
      expect(failure(fixture('no-such-file.yaml'))).to.include('cannot be read (ENOENT)');
    });

    describe('semantic checks', () => {
      const write = (name: string, data: unknown) => writeScratch(name, JSON.stringify(data));
      const services = { firewall_per_1k_tokens: 0, retrieval_per_call: 0, ingest_per_chunk: 0 };
      const local = { id: 'local', region: 'eu', kind: 'local' };
      const chat = (id: string, provider = 'local', extra: object = {}) => ({
        id,
        type: 'chat',
        context_length: 10,
        pricing: { prompt: 1, completion: 1 },
        endpoints: [{ provider, upstream_model: 'x' }],
        ...extra,
      });

      it('per-type fields, id form, duplicates, and providers', () => {
        const file = write('semantic.json', {
          providers: [local, { id: 'local', region: 'eu', kind: 'local' }, { id: 'up', region: 'eu', kind: 'openai' }],
          models: [
            chat('no-slash'),
            chat('local/a', 'local', { context_length: undefined, dimensions: 3 }),
            chat('local/a'),
            chat('acme/b', 'local'),
            { id: 'local/e', type: 'embedding', dimensions: 4, max_output_tokens: 10, pricing: { prompt: 1 }, endpoints: [{ provider: 'local', upstream_model: 'e' }] },
            chat('local/c', 'local', { pricing: { prompt: 1 } }),
          ],
          aliases: { mixed: ['local/c', 'local/e'], 'bad/name': ['local/c'] },
          services,
        });
        const message = failure(file);
        for (const problem of [
          'providers.1 (local).id "local" is used by an earlier provider',
          'providers.2 (up).base_url is required for kind openai',
          'models.0 (no-slash).id must have the form <vendor>/<model>',
          'models.1 (local/a).context_length is required for chat models',
          'models.1 (local/a).dimensions is not used by chat models',
          'models.2 (local/a).id "local/a" is used by an earlier model',
          'models.3 (acme/b).endpoints.0.provider "local" is a local provider, which serves only local/... models',
          'models.4 (local/e).reducible is required for embedding models',
          'models.4 (local/e).max_output_tokens is not used by embedding models',
          'models.5 (local/c).pricing.completion is required for chat models',
          'aliases.mixed mixes chat and embedding models',
          'aliases.bad/name must be',
        ]) {
          expect(message).to.include(problem);
        }
        expect(message).not.to.include('max_input_tokens');
      });

      it('shape errors and cross-reference errors together, in one message', () => {
        // A file with a wrong type (the schema's) and an unknown provider, an unknown alias member and
        // a missing context_length (the cross-references'): fixed in one edit, not one per restart.
        const file = write('both.json', {
          providers: [local, { id: 'up', region: 'mars', kind: 'openai', base_url: 'http://127.0.0.1:1/v1' }],
          models: [
            chat('local/echo', 'local', { pricing: { prompt: 'one', completion: 1 } }),
            chat('local/ghost', 'nowhere'),
            chat('local/short', 'local', { context_length: undefined }),
            { id: 'local/unpriced', type: 'chat', context_length: 5, endpoints: [{ provider: 'local', upstream_model: 'echo' }] },
          ],
          aliases: { fast: ['local/echo', 'acme/none'] },
          services,
        });
        const message = failure(file);
        for (const problem of [
          'providers.1 (up).region must be one of eu, external',
          'models.0 (local/echo).pricing.prompt must be number',
          'models.1 (local/ghost).endpoints.0.provider names unknown provider "nowhere"',
          'models.2 (local/short).context_length is required for chat models',
          'models.3 (local/unpriced).pricing is required',
          'aliases.fast.1 names unknown model or alias "acme/none"',
        ]) {
          expect(message).to.include(problem);
        }
        expect(message).not.to.include('pricing.completion');
      });

      it("a local endpoint's upstream_model the local provider does not have, naming the ones it has", () => {
        const file = write('local-upstream.json', {
          providers: [local],
          models: [
            { ...chat('local/typo'), endpoints: [{ provider: 'local', upstream_model: 'nosuchlocal' }] },
            { id: 'local/vectors', type: 'embedding', dimensions: 1024, reducible: false, pricing: { prompt: 0 }, endpoints: [{ provider: 'local', upstream_model: 'echo' }] },
            { ...chat('local/fine'), endpoints: [{ provider: 'local', upstream_model: 'echo' }] },
          ],
          services,
        });
        const message = failure(file);
        expect(message).to.include(
          `models.0 (local/typo).endpoints.0.upstream_model "nosuchlocal" is not a local chat model; the local provider's chat models are: echo`,
        );
        expect(message).to.include(
          `models.1 (local/vectors).endpoints.0.upstream_model "echo" is not a local embedding model; the local provider's embedding models are: embed-1024`,
        );
        expect(message).not.to.include('local/fine');
      });

      it('an unknown profile, naming the field and the profiles there are', () => {
        const file = write('profile.json', {
          providers: [{ id: 'up', region: 'eu', kind: 'openai', base_url: 'http://127.0.0.1:1/v1', profile: 'mistrall' }],
          models: [chat('acme/a', 'up')],
          services,
        });
        expect(failure(file)).to.include('providers.0 (up).profile must be one of openai, mistral, anthropic-openai, scaleway, generic');
      });
    });
  });

  describe("the contract's catalogue shape", () => {
    // CONTRACT.md "Running it", word for word, plus an embedding model without input or batch limits.
    const contractYaml = `providers:
  - id: mistral              # the name used in provider.order / only / ignore
    region: eu               # eu | external
    kind: openai             # wire-format adapter: openai | local
    base_url: https://api.mistral.ai/v1
    api_key: \${MISTRAL_API_KEY}
    timeout_ms: 60000
models:
  - id: mistral/mistral-small-latest
    type: chat               # chat | embedding
    context_length: 32000    # or dimensions: 1024 and reducible: false for embedding models
    pricing: {prompt: 0.1, completion: 0.3}   # credits per 1,000 tokens
    capabilities: [tools, json_schema]
    reasoning_effort: []     # levels the model takes
    endpoints:               # in catalogue order
      - {provider: mistral, upstream_model: mistral-small-latest}
  - id: mistral/mistral-embed
    type: embedding
    dimensions: 1024
    reducible: false
    pricing: {prompt: 0.1}
    endpoints:
      - {provider: mistral, upstream_model: mistral-embed}
aliases:
  eu-fast: [mistral/mistral-small-latest, local/echo]
services:                    # credits for the service fees
  firewall_per_1k_tokens: 0.01
  retrieval_per_call: 0.05
  ingest_per_chunk: 0.02
`;

    it('starts, with documented defaults for what it leaves out', () => {
      // The contract's alias names local/echo, which its snippet does not declare; an operator adds it.
      const withLocal = contractYaml
        .replace('models:\n', 'models:\n  - {id: local/echo, type: chat, context_length: 8192, pricing: {prompt: 0, completion: 0}, endpoints: [{provider: local, upstream_model: echo}]}\n')
        .replace('  - id: mistral ', '  - {id: local, region: eu, kind: local}\n  - id: mistral ');
      const catalog = loadCatalog({ file: writeScratch('contract.yaml', withLocal), env: { MISTRAL_API_KEY: 'k' } });
      const embed = getModel(catalog, 'mistral/mistral-embed');
      expect(embed).to.include({ type: 'embedding', maxInputTokens: 8192, maxBatch: 128 });
      expect(getModel(catalog, 'mistral/mistral-small-latest')).to.include({ type: 'chat', contextLength: 32000, maxOutputTokens: 4096 });
      const mistral = catalog.providers.get('mistral')!;
      expect(mistral.profile, 'known from api.mistral.ai').to.equal('mistral');
      expect(mistral.circuit).to.deep.equal({ failures: 5, cooldownMs: 10_000, maxCooldownMs: 300_000 });
    });

    it('starts word for word: the local provider, local/echo and local/embed-1024 are built in, and memory has its model', () => {
      // QA: the contract's snippet failed ("aliases.eu-fast.1 names unknown model or alias local/echo"),
      // and one without an EU embedding model of 1024 dimensions made every chat with memory a 500.
      const wordForWord = contractYaml.replace(/  - id: mistral\/mistral-embed[\s\S]*?(?=aliases:)/, '');
      expect(wordForWord).not.to.contain('mistral-embed');
      const catalog = loadCatalog({ file: writeScratch('word-for-word.yaml', wordForWord), env: {} });
      expect(catalog.providers.get('local')).to.include({ kind: 'local', region: 'eu', available: true });
      expect(getModel(catalog, 'local/echo')).to.include({ type: 'chat' });
      expect(getModel(catalog, 'local/embed-1024')).to.include({ type: 'embedding', dimensions: 1024 });
      expect(expandChain(catalog, ['eu-fast'])).to.deep.equal(['mistral/mistral-small-latest', 'local/echo']);
      expect(memoryEmbeddingModel(catalog).id).to.equal('local/embed-1024');
      // A catalogue's own entry of a built-in id wins.
      const own = wordForWord.replace('models:\n', 'models:\n  - {id: local/echo, type: chat, context_length: 8192, pricing: {prompt: 1, completion: 1}, endpoints: [{provider: local, upstream_model: echo}]}\n');
      expect(getModel(loadCatalog({ file: writeScratch('own-echo.yaml', own), env: {} }), 'local/echo')).to.include({ contextLength: 8192 });
    });

    it('a renamed provider keeps the profile of its host; another host is generic unless the catalogue names one', () => {
      const renamed = contractYaml.replaceAll('provider: mistral', 'provider: la-plateforme').replace('id: mistral ', 'id: la-plateforme ');
      const catalog = loadCatalog({ file: writeScratch('renamed.yaml', renamed.replace(/aliases:[\s\S]*?services:/, 'services:')), env: { MISTRAL_API_KEY: 'k' } });
      expect(catalog.providers.get('la-plateforme')!.profile).to.equal('mistral');

      const selfHosted = renamed.replace('https://api.mistral.ai/v1', 'http://10.0.0.5:8000/v1').replace(/aliases:[\s\S]*?services:/, 'services:');
      expect(loadCatalog({ file: writeScratch('vllm.yaml', selfHosted), env: { MISTRAL_API_KEY: 'k' } }).providers.get('la-plateforme')!.profile).to.equal('generic');
      const named = selfHosted.replace('timeout_ms: 60000', 'timeout_ms: 60000\n    profile: mistral');
      expect(loadCatalog({ file: writeScratch('named.yaml', named), env: { MISTRAL_API_KEY: 'k' } }).providers.get('la-plateforme')!.profile).to.equal('mistral');
    });
  });

  describe('secrets', () => {
    const secret = 'sk-env-secret-value-42';

    it('never appear in the message of a broken catalogue', () => {
      for (const name of ['unknown-region.yaml', 'many-errors.yaml', 'wrong-type.yaml', 'syntax-error.yaml']) {
        expect(failure(fixture(name), { EU_HOST_KEY: secret })).to.not.include(secret);
      }
    });

    it('never appear in a syntax error next to a literal key', () => {
      for (const name of ['secret-syntax-error.json', 'secret-syntax-error.yaml']) {
        const message = failure(fixture(name));
        expect(message).to.match(/syntax error at line \d+/);
        expect(message).to.not.include('sk-literal-secret');
      }
    });

    it('never appear when a key is given where it does not belong', () => {
      const file = writeScratch(
        'local-key.yaml',
        [
          'providers: [{id: local, region: eu, kind: local, api_key: "${KEY}"}]',
          'models: [{id: local/echo, type: chat, context_length: 1, pricing: {prompt: 1, completion: 1}, endpoints: [{provider: local, upstream_model: echo}]}]',
          'services: {firewall_per_1k_tokens: 0, retrieval_per_call: 0, ingest_per_chunk: 0}',
        ].join('\n'),
      );
      const message = failure(file, { KEY: secret });
      expect(message).to.include('providers.0 (local).api_key is not used by a local provider');
      expect(message).to.not.include(secret);
    });
  });

  describe('expandChain', () => {
    const c = () => loadCatalog({ file: fixture('valid.json'), env: { EU_HOST_URL: 'https://eu.example.com' } });

    it('expands nested aliases in place, keeping the first of any duplicate', () => {
      expect(c().aliases.get('all')).to.deep.equal(['acme/chat-small', 'local/echo', 'acme/chat-eu']);
      expect(expandChain(c(), ['acme/chat-eu', 'fast', 'local/echo', 'acme/embed'])).to.deep.equal([
        'acme/chat-eu',
        'acme/chat-small',
        'local/echo',
        'acme/embed',
      ]);
    });

    it('leaves a single model alone and passes unknown slugs through for the caller to report', () => {
      expect(expandChain(c(), ['local/echo'])).to.deep.equal(['local/echo']);
      expect(expandChain(c(), ['nope/nope', 'fast'])).to.deep.equal(['nope/nope', 'acme/chat-small', 'local/echo']);
    });
  });
});
