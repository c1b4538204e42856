import type { EmbeddingService } from '../../gateway/embeddings.js';
import type { EmbeddingRequest } from '../../generated/openapi.js';
import type { Operations } from '../operations.js';
import { gatewayContext } from '../requestMeta.js';
import { reply } from '../state.js';

const BASE64_HINT =
  'only "float" is supported; pass encoding_format: "float" (the OpenAI SDK and LangChain ask for base64 unless told otherwise)';

export function embeddingRoutes(api: Operations, { embeddings }: { embeddings: EmbeddingService }): void {
  api.add('createEmbedding', { bodyHints: { encoding_format: BASE64_HINT } }, async (ctx) => {
    const answer = await embeddings.create(gatewayContext(ctx), ctx.state.body as EmbeddingRequest);
    reply(ctx, answer);
  });
}
