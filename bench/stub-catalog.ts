// The catalogue of the benches that put the gateway in front of bench/gateway-stub.ts: one EU
// provider (the stub) and one chat model on it, priced as in the default catalogue.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `catalog.yaml` into `dir` and returns its path. The provider's key is read from STUB_KEY. */
export function writeStubCatalog(dir: string, stubPort: number, model: string): string {
  const file = join(dir, 'catalog.yaml');
  writeFileSync(
    file,
    `# One EU provider (the zero-delay stub of bench/gateway-stub.ts) and one model on it.
providers:
  - {id: stub, region: eu, kind: openai, base_url: "http://127.0.0.1:${stubPort}/v1", api_key: "\${STUB_KEY}", timeout_ms: 30000}
models:
  - id: ${model}
    type: chat
    context_length: 131072
    pricing: {prompt: 0.1, completion: 0.3}
    endpoints: [{provider: stub, upstream_model: stub-chat}]
services: {firewall_per_1k_tokens: 0.01, retrieval_per_call: 0.05, ingest_per_chunk: 0.02}
`,
  );
  return file;
}
