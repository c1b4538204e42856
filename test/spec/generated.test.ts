import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { expect } from 'chai';
import { projectRoot } from '../../src/paths.js';

// ajv-formats is CommonJS: under NodeNext its default import is module.exports, whose .default is the plugin.
const addFormats = ajvFormats.default;
const run = promisify(execFile);

interface Operation {
  method: string;
  path: string;
  fullPath: string;
  scope: string | null;
  body: string | null;
  query: string | null;
}

interface SchemaDocument {
  $id: string;
  $defs: Record<string, unknown>;
  'x-operations': Record<string, Operation>;
}

const document = JSON.parse(readFileSync(join(projectRoot, 'src/generated/schemas.json'), 'utf8')) as SchemaDocument;
const operations = document['x-operations'];

// Every endpoint of the interface and of CONTRACT.md, as METHOD + full path.
const INTERFACE: Record<string, string> = {
  createChatCompletion: 'POST /v1/chat/completions',
  createMessage: 'POST /v1/messages',
  countMessageTokens: 'POST /v1/messages/count_tokens',
  createResponse: 'POST /v1/responses',
  getResponse: 'GET /v1/responses/{id}',
  listResponseInputItems: 'GET /v1/responses/{id}/input_items',
  deleteResponse: 'DELETE /v1/responses/{id}',
  createEmbedding: 'POST /v1/embeddings',
  ingestDocument: 'POST /v1/memory/documents',
  listDocuments: 'GET /v1/memory/documents',
  getDocument: 'GET /v1/memory/documents/{id}',
  deleteDocument: 'DELETE /v1/memory/documents/{id}',
  createCollection: 'POST /v1/recall/collections',
  listCollections: 'GET /v1/recall/collections',
  deleteCollection: 'DELETE /v1/recall/collections/{slug}',
  submitFact: 'POST /v1/recall/facts',
  listFacts: 'GET /v1/recall/facts',
  // Beyond the interface: how a submission's extraction went (mem0's event status), which the
  // facts.extracted webhook tells only when it succeeded.
  getFact: 'GET /v1/recall/facts/{id}',
  correctFact: 'PATCH /v1/memory/facts/{id}',
  getFactSubmission: 'GET /v1/recall/submissions/{id}',
  deleteFact: 'DELETE /v1/memory/facts/{id}',
  eraseEndUser: 'DELETE /v1/memory',
  getThread: 'GET /v1/recall/threads/{thread}',
  deleteThread: 'DELETE /v1/memory/threads/{thread}',
  listModels: 'GET /v1/models',
  getModel: 'GET /v1/models/{vendor}/{name}',
  getModelWithoutVendor: 'GET /v1/models/{id}',
  listAuditLog: 'GET /v1/audit-log',
  listTraces: 'GET /v1/traces',
  getTrace: 'GET /v1/traces/{id}',
  createScore: 'POST /v1/scores',
  listScores: 'GET /v1/scores',
  getUsage: 'GET /v1/usage',
  getRouterSettings: 'GET /v1/settings/router',
  updateRouterSettings: 'PUT /v1/settings/router',
  getLimitSettings: 'GET /v1/settings/limits',
  updateLimitSettings: 'PUT /v1/settings/limits',
  createKey: 'POST /v1/keys',
  listKeys: 'GET /v1/keys',
  getCurrentKey: 'GET /v1/key',
  listBudgets: 'GET /v1/budgets',
  getKey: 'GET /v1/keys/{id}',
  updateKey: 'PATCH /v1/keys/{id}',
  revokeKey: 'DELETE /v1/keys/{id}',
  createWebhook: 'POST /v1/webhooks',
  listWebhooks: 'GET /v1/webhooks',
  getWebhook: 'GET /v1/webhooks/{id}',
  updateWebhook: 'PATCH /v1/webhooks/{id}',
  deleteWebhook: 'DELETE /v1/webhooks/{id}',
  rotateWebhookSecret: 'POST /v1/webhooks/{id}/rotate-secret',
  testWebhook: 'POST /v1/webhooks/{id}/test',
  listWebhookDeliveries: 'GET /v1/webhooks/{id}/deliveries',
  retryWebhookDelivery: 'POST /v1/webhooks/{id}/deliveries/{delivery_id}/retry',
  getOpenApi: 'GET /v1/openapi.json',
  healthz: 'GET /healthz',
  readyz: 'GET /readyz',
  metrics: 'GET /metrics',
};

describe('generated schemas and types (spec/openapi.yaml)', function () {
  it('generated files are fresh', async function () {
    this.timeout(60_000);
    try {
      await run(process.execPath, ['scripts/gen.mjs', '--check'], { cwd: projectRoot });
    } catch (err) {
      const { stderr, stdout } = err as { stderr?: string; stdout?: string };
      expect.fail(`node scripts/gen.mjs --check failed:\n${stderr ?? ''}${stdout ?? ''}`);
    }
  });

  it('describes every endpoint of the interface with its operationId', function () {
    const actual = Object.fromEntries(
      Object.entries(operations).map(([id, op]) => [id, `${op.method} ${op.fullPath}`]),
    );
    expect(actual).to.deep.equal(INTERFACE);
  });

  it('names only schemas that exist in $defs', function () {
    for (const [id, op] of Object.entries(operations)) {
      if (op.body !== null) expect(document.$defs, `${id} body`).to.have.property(op.body);
      if (op.query !== null) expect(document.$defs, `${id} query`).to.have.property(op.query);
    }
    expect(operations.createChatCompletion?.body).to.equal('ChatCompletionRequest');
    expect(operations.createEmbedding?.body).to.equal('EmbeddingRequest');
    expect(operations.ingestDocument?.body).to.equal('DocumentIngestRequest');
    expect(operations.eraseEndUser?.body).to.equal('EraseRequest');
    expect(operations.listDocuments?.query).to.equal('listDocumentsQuery');
  });

  it('marks scopes, and leaves them off models, openapi.json and the operational endpoints', function () {
    expect(operations.createChatCompletion?.scope).to.equal('chat.create');
    expect(operations.createEmbedding?.scope).to.equal('embeddings.create');
    expect(operations.eraseEndUser?.scope).to.equal('memory.write');
    expect(operations.listAuditLog?.scope).to.equal('audit.read');
    for (const id of ['createKey', 'listKeys', 'getKey', 'updateKey', 'revokeKey']) {
      expect(operations[id]?.scope, id).to.equal('keys.write');
    }
    for (const id of ['listWebhooks', 'getWebhook', 'listWebhookDeliveries']) expect(operations[id]?.scope, id).to.equal('webhooks.read');
    for (const id of ['createWebhook', 'updateWebhook', 'deleteWebhook', 'rotateWebhookSecret', 'testWebhook', 'retryWebhookDelivery']) {
      expect(operations[id]?.scope, id).to.equal('webhooks.write');
    }
    for (const id of ['listModels', 'getCurrentKey', 'getOpenApi', 'healthz', 'readyz', 'metrics']) {
      expect(operations[id]?.scope, id).to.equal(null);
    }
  });

  describe('validation with Ajv against the generated schemas', function () {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats(ajv);
    // x-null-means-absent is acted on by the app's validator (src/http/validation.ts); plain Ajv reads it as a note.
    ajv.addVocabulary(['x-operations', 'x-null-means-absent']);
    ajv.addSchema(document);
    const validator = (name: string): ValidateFunction => {
      const validate = ajv.getSchema(`${document.$id}#/$defs/${name}`);
      if (!validate) throw new Error(`no schema ${name}`);
      return validate;
    };
    const chat = validator('ChatCompletionRequest');
    const embeddings = validator('EmbeddingRequest');
    const ingest = validator('DocumentIngestRequest');
    const listDocuments = validator('listDocumentsQuery');

    const validChat = {
      model: 'mistral/mistral-small-latest',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Delft?' }] },
        {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Delft"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp": 12}' },
      ],
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'weather' } },
      collection: ['polissen'],
      tags: ['a', 'b'],
      stop: 'END',
      reasoning_effort: null,
      response_format: { type: 'json_object' },
      stream_options: { include_usage: true, include_obfuscation: false },
      some_future_field: 1,
    };

    it('accepts a valid chat body with unknown fields at every level', function () {
      expect(chat(validChat), JSON.stringify(chat.errors)).to.equal(true);
    });

    it('refuses an empty messages array', function () {
      expect(chat({ ...validChat, messages: [] })).to.equal(false);
      expect(chat.errors?.map((e) => e.instancePath)).to.include('/messages');
    });

    it('refuses 11 tags', function () {
      expect(chat({ ...validChat, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) })).to.equal(false);
      expect(chat.errors?.map((e) => e.instancePath)).to.include('/tags');
    });

    it('refuses a user message without content and a tool message without tool_call_id', function () {
      expect(chat({ model: 'm', messages: [{ role: 'user' }] })).to.equal(false);
      expect(chat({ model: 'm', messages: [{ role: 'tool', content: 'x' }] })).to.equal(false);
      expect(chat({ model: 'm', messages: [{ role: 'assistant', content: null }] })).to.equal(false);
      expect(chat({ model: 'm', messages: [{ role: 'robot', content: 'x' }] })).to.equal(false);
    });

    it('refuses an EmbeddingRequest with encoding_format base64', function () {
      const body = { model: 'mistral/mistral-embed', input: ['a', 'b'] };
      expect(embeddings(body), JSON.stringify(embeddings.errors)).to.equal(true);
      expect(embeddings({ ...body, encoding_format: 'float' })).to.equal(true);
      expect(embeddings({ ...body, encoding_format: 'base64' })).to.equal(false);
      expect(embeddings.errors?.map((e) => e.instancePath)).to.include('/encoding_format');
    });

    it('refuses an ingest with an unknown top-level field', function () {
      const body = { title: 'Polisvoorwaarden', text: 'Artikel 1 ...', collection: 'polissen', source: null };
      expect(ingest(body), JSON.stringify(ingest.errors)).to.equal(true);
      expect(ingest({ ...body, owner: 'x' })).to.equal(false);
      expect(ingest.errors?.map((e) => e.keyword)).to.include('additionalProperties');
    });

    it('bounds the listDocuments limit to 1..100', function () {
      expect(listDocuments({ limit: 100, collection: 'polissen' })).to.equal(true);
      expect(listDocuments({ limit: 101 })).to.equal(false);
      expect(listDocuments({ limit: 0 })).to.equal(false);
      expect(listDocuments({ unknown: 'x' })).to.equal(false);
    });
  });
});
