import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalog, type Catalog } from '../../src/gateway/catalog.js';

// Catalogues a test writes: a file in a temporary directory (a process the test starts reads it
// by CATALOG_FILE) and the catalogue loaded from it, with the stub providers' key variable set.

/**
 * A 1024-dimension embedding model as a `models:` entry, served by the given endpoints in order
 * (`[provider, upstream model]` pairs).
 */
export function embeddingModel1024(id: string, endpoints: [provider: string, upstream: string][]): string {
  return [
    `  - id: ${id}`,
    '    type: embedding',
    '    dimensions: 1024',
    '    reducible: false',
    '    max_input_tokens: 8192',
    '    max_batch: 256',
    '    pricing: {prompt: 0.01}',
    '    endpoints:',
    ...endpoints.map(([provider, upstream]) => `      - {provider: ${provider}, upstream_model: ${upstream}}`),
  ].join('\n');
}

/** The built-in EU embedding model, as a `models:` entry. */
export const LOCAL_EMBED_MODEL = embeddingModel1024('local/embed-1024', [['local', 'embed-1024']]);

/** The service fees of the bundled catalogue. */
export const SERVICES = 'services: {firewall_per_1k_tokens: 0.01, retrieval_per_call: 0.05, ingest_per_chunk: 0.02}';
/** No service fees: the bill is the model's price alone. */
export const FREE_SERVICES = 'services: {firewall_per_1k_tokens: 0, retrieval_per_call: 0, ingest_per_chunk: 0}';

/** Writes `yaml` to a new temporary catalogue file and returns its path. */
export function writeTestCatalog(yaml: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'polder-catalog-')), 'catalog.yaml');
  writeFileSync(file, yaml);
  return file;
}

/** Writes `yaml` and loads it with `env` (the stub providers' key: `STUB_KEY`). */
export function loadTestCatalog(yaml: string, env: NodeJS.ProcessEnv = { STUB_KEY: 'sk-stub' }): { file: string; catalog: Catalog } {
  const file = writeTestCatalog(yaml);
  return { file, catalog: loadCatalog({ file, env }) };
}
