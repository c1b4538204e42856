// The local provider's thread (./thread.ts): computes what a large request would otherwise hold
// the web process's event loop for.
import { parentPort } from 'node:worker_threads';
import { countTokens } from '../../tokens.js';
import type { UpstreamChatRequest } from '../types.js';
import { echoCompletion } from './echo.js';
import { embedBatch, toNumberArray } from './embed.js';
import type { LocalJob } from './thread.js';

function run(job: LocalJob): unknown {
  if (job.kind === 'complete') return echoCompletion(job.request as UpstreamChatRequest);
  const embeddings = embedBatch(job.input).map(toNumberArray);
  const tokens = job.input.reduce((sum, text) => sum + countTokens(text), 0);
  return { embeddings, tokens };
}

parentPort!.on('message', ({ id, job }: { id: number; job: LocalJob }) => {
  try {
    parentPort!.postMessage({ id, result: run(job) });
  } catch (err) {
    parentPort!.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
