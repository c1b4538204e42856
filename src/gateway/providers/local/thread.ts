import { Worker } from 'node:worker_threads';
import type { UpstreamChatRequest, UpstreamCompletion } from '../types.js';

// The local models run in the web process. A small request is answered on the event loop (a
// thread's round trip would cost it more than the work); a large one, whose tokenizing and
// embedding take from a tenth of a second to many seconds, on one thread of the provider's own,
// so that the other requests of the process go on meanwhile. The thread is started on first use,
// does not keep the process alive, and is started again after a failure.

/** Characters of input from which a request is computed on the thread. */
export const OFF_THREAD_CHARS = 32 * 1024;

export type LocalJob = { kind: 'complete'; request: UpstreamChatRequest } | { kind: 'embed'; input: readonly string[] };
type Result<J extends LocalJob> = J extends { kind: 'complete' } ? UpstreamCompletion : { embeddings: number[][]; tokens: number };

interface Waiting {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

let worker: Worker | undefined;
const waiting = new Map<number, Waiting>();
let nextId = 0;

function failAll(err: Error): void {
  for (const w of waiting.values()) w.reject(err);
  waiting.clear();
}

function thread(): Worker {
  if (worker) return worker;
  const started = new Worker(new URL('./threadMain.js', import.meta.url));
  started.unref();
  started.on('message', ({ id, result, error }: { id: number; result?: unknown; error?: string }) => {
    const w = waiting.get(id);
    if (!w) return;
    waiting.delete(id);
    if (error !== undefined) w.reject(new Error(error));
    else w.resolve(result);
    if (waiting.size === 0) started.unref();
  });
  const lost = (err: Error) => {
    if (worker === started) worker = undefined;
    failAll(err);
  };
  started.on('error', lost);
  started.on('exit', (code) => lost(new Error(`the local provider's thread exited (${code})`)));
  worker = started;
  return started;
}

/** Runs the job on the provider's thread. */
export function offThread<J extends LocalJob>(job: J): Promise<Result<J>> {
  const target = thread();
  const id = nextId++;
  // Held while a job runs, so that a process that is otherwise done still gets its answer.
  target.ref();
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve: resolve as (result: unknown) => void, reject });
    target.postMessage({ id, job });
  });
}

/** Stops the thread (at shutdown); a later job starts another. */
export async function stopThread(): Promise<void> {
  const stopping = worker;
  worker = undefined;
  if (stopping) await stopping.terminate();
}
