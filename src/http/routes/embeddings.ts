import type { EmbeddingService } from '../../gateway/embeddings.js';
import type { EmbeddingRequest } from '../../generated/openapi.js';
import { jsonBody } from '../middleware/body.js';
import { requireScope } from '../middleware/auth.js';
import { applicationName, clientSignal, traceContext } from '../requestMeta.js';
import { idempotencyOf, reply, type AppRouter } from '../state.js';
import type { Validator } from '../validation.js';

const BASE64_HINT =
  'only "float" is supported; pass encoding_format: "float" (the OpenAI SDK and LangChain ask for base64 unless told otherwise)';

export function embeddingRoutes(
  router: AppRouter,
  { embeddings, validator, bodyLimitBytes }: { embeddings: EmbeddingService; validator: Validator; bodyLimitBytes: number },
): void {
  router.post(
    '/embeddings',
    requireScope('embeddings.create'),
    jsonBody(bodyLimitBytes),
    validator.body('EmbeddingRequest', { encoding_format: BASE64_HINT }),
    async (ctx) => {
      const answer = await embeddings.create(
        { ...idempotencyOf(ctx), application: applicationName(ctx), traceContext: traceContext(ctx), signal: clientSignal(ctx), log: ctx.state.log },
        ctx.state.body as EmbeddingRequest,
      );
      reply(ctx, answer);
    },
  );
}
