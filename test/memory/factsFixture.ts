import type { SubmissionRow as StoredSubmission } from '../../src/memory/facts.js';
import { api, startTestApp, type JsonResponse, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/db.js';
import { startStubProvider, type StubProvider } from '../helpers/stubProvider.js';
import { LOCAL_EMBED_MODEL, SERVICES, loadTestCatalog } from '../helpers/catalog.js';

// Facts tests: an app whose catalogue has extraction models on stub providers (one in the EU,
// one outside), the built-in local/embed-1024 for memory embeddings, and helpers to submit,
// list and wait.

export interface FactsFixture {
  app: TestApp;
  /** The EU provider of test/extractor. */
  eu: StubProvider;
  /** The external provider of test/ext-extractor. */
  ext: StubProvider;
  /** An organization key of org "acme", workspace "main". */
  key: string;
  keyId: string;
  organizationId: string;
  workspaceId: string;
  close(): Promise<void>;
}

export async function startFactsFixture(): Promise<FactsFixture> {
  const [eu, ext] = await Promise.all([startStubProvider(), startStubProvider()]);
  const yaml = `
providers:
  - {id: eu-x, region: eu, kind: openai, base_url: "${eu.url}", api_key: "\${STUB_KEY}", timeout_ms: 10000}
  - {id: ext, region: external, kind: openai, base_url: "${ext.url}", api_key: "\${STUB_KEY}", timeout_ms: 10000}
  - {id: local, region: eu, kind: local}
models:
  - id: test/extractor
    type: chat
    context_length: 32000
    pricing: {prompt: 1, completion: 2}
    capabilities: [json_schema]
    endpoints:
      - {provider: eu-x, upstream_model: extractor-upstream}
  - id: test/ext-extractor
    type: chat
    context_length: 32000
    pricing: {prompt: 1, completion: 2}
    capabilities: [json_schema]
    endpoints:
      - {provider: ext, upstream_model: ext-extractor-upstream}
${LOCAL_EMBED_MODEL}
aliases: {}
${SERVICES}
`;
  const { catalog } = loadTestCatalog(yaml, { STUB_KEY: 'sk-stub-secret' });
  const app = await startTestApp({ catalog });
  const created = await app.key();
  return {
    app,
    eu,
    ext,
    key: created.key,
    keyId: created.key_id,
    organizationId: created.organization_id,
    workspaceId: created.workspace_id,
    async close() {
      await app.close();
      await Promise.all([eu.close(), ext.close()]);
    },
  };
}

export function submitFact(app: TestApp, key: string, body: unknown): Promise<JsonResponse> {
  return api(app.baseUrl, '/v1/recall/facts', { method: 'POST', key, body });
}

export function getFacts(app: TestApp, key: string, query: Record<string, string> = {}): Promise<JsonResponse> {
  const search = new URLSearchParams(query).toString();
  return api(app.baseUrl, `/v1/recall/facts${search ? `?${search}` : ''}`, { key });
}

/** The contents of the facts listed for `query`, newest first. */
export async function factContents(app: TestApp, key: string, query: Record<string, string> = {}): Promise<string[]> {
  const response = await getFacts(app, key, query);
  if (response.status !== 200) throw new Error(`GET /recall/facts answered ${response.status}: ${response.text}`);
  return response.body.data.map((f: { content: string }) => f.content);
}

/** Polls the listing until `accept` holds; returns the contents it accepted. */
export function waitForFacts(
  app: TestApp,
  key: string,
  query: Record<string, string>,
  accept: (contents: string[]) => boolean,
  what = 'the facts',
): Promise<string[]> {
  return waitFor(
    async () => {
      const contents = await factContents(app, key, query);
      return accept(contents) ? contents : undefined;
    },
    { what },
  );
}

/** A submission as its row holds it, its text too (which the API never shows). */
export interface SubmissionRow extends Omit<StoredSubmission, 'created_at' | 'completed_at'> {
  content: string | null;
}

/** The latest submission of the workspace for `userRef`. */
export async function latestSubmission(app: TestApp, workspaceId: string, userRef: string | null): Promise<SubmissionRow | undefined> {
  const { rows } = await app.db.pool.query<SubmissionRow>(
    `select id, user_ref, content, status, extractor, facts_found, facts_added, facts_updated, facts_deleted, error
       from fact_submissions
      where workspace_id = $1 and user_ref is not distinct from $2
      order by created_at desc
      limit 1`,
    [workspaceId, userRef],
  );
  return rows[0];
}

/** Waits for the latest submission of `userRef` to end (done, empty or failed). */
export function waitForSubmission(app: TestApp, workspaceId: string, userRef: string | null): Promise<SubmissionRow> {
  return waitFor(
    async () => {
      const row = await latestSubmission(app, workspaceId, userRef);
      return row && ['done', 'empty', 'failed'].includes(row.status) ? row : undefined;
    },
    { what: `the submission of ${userRef ?? 'shared'} to end` },
  );
}

/** Waits until no memory__extract_facts job is left: each one ran and succeeded. */
export function waitForNoExtractionJobs(app: TestApp): Promise<true> {
  return waitFor(
    async () => {
      const { rows } = await app.db.pool.query<{ n: number }>(
        "select count(*)::int as n from graphile_worker.jobs where task_identifier = 'memory__extract_facts'",
      );
      return rows[0]!.n === 0;
    },
    { what: 'the extraction jobs to finish' },
  );
}

export async function setExtractionModel(fixture: { app: TestApp; organizationId: string; workspaceId: string }, model: string | null): Promise<void> {
  await fixture.app.db.pool.query(
    `insert into workspace_settings (workspace_id, organization_id, extraction_model) values ($1, $2, $3)
     on conflict (workspace_id) do update set extraction_model = excluded.extraction_model`,
    [fixture.workspaceId, fixture.organizationId, model],
  );
}

/** A chat completion answer for the stub whose content is `value` as JSON. */
export function jsonAnswer(value: unknown, delayMs?: number) {
  return { type: 'answer' as const, content: JSON.stringify(value), ...(delayMs ? { delayMs } : {}) };
}
