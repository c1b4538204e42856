// The load generator of bench/gateway.ts, in its own process so that its CPU use shows on its
// own and it never shares an event loop with a server it measures. Closed loop: `concurrency`
// workers, each on its own keep-alive socket of an undici Pool, send a request, read the whole
// answer, and send the next. Each request is timed with process.hrtime.bigint() from just before
// it is dispatched to the last byte of the answer.
//
// A step is a warm-up (not recorded) and then a measuring window; workers start no request once
// the window is over, and the step is also bounded by a request count. Every answer must be a 200
// whose body holds "choices"; anything else (or a transport error) counts as an error. Unless the
// spec gives one body for every request (the cache-hit target), each request's prompt is new.
// The answers' X-Cache headers are counted; with `expectCacheHit`, an answer that is not a HIT is
// an error. With `recordRequestIds`, the X-Request-Id of every 200 answer is sent back (the
// durability check looks each one up in the usage table).
//
// Protocol (IPC): parent sends {type:'run', ...RunSpec}; child sends {type:'window', id} when the
// warm-up ends and {type:'result', id, result} when the step is done.
import { Pool, type Dispatcher } from 'undici';

export interface RunSpec {
  id: number;
  /** e.g. http://127.0.0.1:8080 */
  origin: string;
  path: string;
  /** Which wire format the bodies are in: chat completions (default) or the Responses door's. */
  door?: 'chat' | 'responses' | 'responses-unstored';
  headers: Record<string, string>;
  model: string;
  concurrency: number;
  warmupMs: number;
  windowMs: number;
  /** Upper bound on the requests one step sends (warm-up included). */
  maxRequests: number;
  /** The same body for every request (to measure the response cache's hit path); else a new prompt each time. */
  body?: string;
  /** An answer without `X-Cache: HIT` counts as an error. */
  expectCacheHit?: boolean;
  /** Return the X-Request-Id of every 200 answer of the step (warm-up included). */
  recordRequestIds?: boolean;
}

export interface StepResult {
  id: number;
  concurrency: number;
  /** Successful answers started within the window. */
  count: number;
  /** Failed requests started within the window. */
  errors: number;
  warmupErrors: number;
  /** Successful answers in the whole step, warm-up included (to compare with what the stub saw). */
  totalOk: number;
  errorSamples: string[];
  /** Latencies in milliseconds (nearest-rank percentiles). */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  rps: number;
  /** Measured span: window start to the end of the last request started in it. */
  windowMs: number;
  /** This process's CPU time during the window, in ms. */
  loadCpuMs: number;
  /** Answers in the whole step whose X-Cache header said HIT. */
  cacheHits: number;
  /** With recordRequestIds: the X-Request-Id of every 200 answer in the whole step. */
  answeredIds?: string[];
  /** With recordRequestIds: 200 answers that carried no X-Request-Id (so cannot be looked up). */
  answeredWithoutId?: number;
  /** When the first and the last failed request ended, ms after the window started (none: undefined). */
  failureSpanMs?: [number, number];
}

// Unique content per request (a counter, plus a nonce per process) so that no request hits the
// gateway's response cache, even across runs against the same database.
const nonce = Math.random().toString(36).slice(2, 10);
let counter = 0;

function bodyOf(model: string, door: RunSpec['door']): string {
  counter++;
  if (door === 'responses' || door === 'responses-unstored') {
    const store = door === 'responses-unstored' ? ',"store":false' : '';
    return `{"model":${JSON.stringify(model)},"input":"Bench ${nonce}-${counter}: reply with a short greeting."${store}}`;
  }
  return `{"model":${JSON.stringify(model)},"messages":[{"role":"user","content":"Bench ${nonce}-${counter}: reply with a short greeting."}]}`;
}

interface Outcome {
  ok: boolean;
  detail?: string;
  requestId?: string;
  cacheHit: boolean;
}

const CHOICES = Buffer.from('"choices"');
const OUTPUT = Buffer.from('"output"');

/** One request through the dispatcher API: no Readable per response, so the generator stays light. */
class OneRequest implements Dispatcher.DispatchHandler {
  private status = 0;
  private parts: Buffer[] = [];
  private requestId: string | undefined;
  private cache: string | undefined;
  constructor(
    private readonly done: (o: Outcome) => void,
    private readonly expectCacheHit: boolean,
    private readonly answerMark: Buffer = CHOICES,
  ) {}

  onRequestStart(): void {}
  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.status = statusCode;
    this.requestId = single(headers['x-request-id']);
    this.cache = single(headers['x-cache']);
  }
  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.parts.push(chunk);
  }
  onResponseEnd(): void {
    const body = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    const cacheHit = this.cache === 'HIT';
    if (this.status !== 200 || !body.includes(this.answerMark)) {
      this.done({ ok: false, cacheHit, detail: `HTTP ${this.status}: ${body.toString('utf8', 0, 300)}` });
    } else if (this.expectCacheHit && !cacheHit) {
      this.done({ ok: false, cacheHit, detail: `HTTP 200 with X-Cache: ${this.cache ?? '(none)'} where a HIT was expected` });
    } else {
      this.done({ ok: true, cacheHit, ...(this.requestId ? { requestId: this.requestId } : {}) });
    }
  }
  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    this.done({ ok: false, cacheHit: false, detail: `${err.name}: ${err.message}` });
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function send(pool: Pool, spec: RunSpec): Promise<Outcome> {
  return new Promise((resolve) => {
    try {
      pool.dispatch(
        {
          origin: spec.origin,
          path: spec.path,
          method: 'POST',
          headers: spec.headers,
          body: spec.body ?? bodyOf(spec.model, spec.door),
          headersTimeout: 15_000,
          bodyTimeout: 15_000,
        },
        new OneRequest(resolve, spec.expectCacheHit === true, spec.door === 'responses' || spec.door === 'responses-unstored' ? OUTPUT : CHOICES),
      );
    } catch (err) {
      resolve({ ok: false, cacheHit: false, detail: (err as Error).message });
    }
  });
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export async function runStep(spec: RunSpec, onWindow: () => void = () => undefined): Promise<StepResult> {
  const pool = new Pool(spec.origin, { connections: spec.concurrency, pipelining: 1, keepAliveTimeout: 60_000 });
  const latencies: number[] = [];
  let errors = 0;
  let warmupErrors = 0;
  let issued = 0;
  let totalOk = 0;
  let cacheHits = 0;
  const answeredIds: string[] = [];
  let answeredWithoutId = 0;
  let failureSpan: [bigint, bigint] | undefined;
  const errorSamples: string[] = [];
  const t0 = process.hrtime.bigint();
  const windowStart = t0 + BigInt(Math.round(spec.warmupMs * 1e6));
  const windowEnd = windowStart + BigInt(Math.round(spec.windowMs * 1e6));
  let lastEnd = windowEnd;
  let cpuAtWindow: NodeJS.CpuUsage | undefined;
  const timer = setTimeout(() => {
    cpuAtWindow = process.cpuUsage();
    onWindow();
  }, spec.warmupMs);

  const worker = async () => {
    for (;;) {
      const start = process.hrtime.bigint();
      if (start >= windowEnd || issued >= spec.maxRequests) return;
      issued++;
      const outcome = await send(pool, spec);
      const end = process.hrtime.bigint();
      if (outcome.ok) totalOk++;
      if (outcome.cacheHit) cacheHits++;
      if (spec.recordRequestIds && outcome.ok) {
        if (outcome.requestId) answeredIds.push(outcome.requestId);
        else answeredWithoutId++;
      }
      if (!outcome.ok) failureSpan = failureSpan ? [failureSpan[0], end] : [end, end];
      if (start >= windowStart) {
        if (outcome.ok) latencies.push(Number(end - start) / 1e6);
        else errors++;
        if (end > lastEnd) lastEnd = end;
      } else if (!outcome.ok) {
        warmupErrors++;
      }
      if (!outcome.ok && errorSamples.length < 3) errorSamples.push(outcome.detail ?? 'error');
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, worker));
  clearTimeout(timer);
  const cpu = process.cpuUsage(cpuAtWindow);
  await pool.close().catch(() => pool.destroy());

  const sorted = Float64Array.from(latencies).sort();
  const windowMs = Number(lastEnd - windowStart) / 1e6;
  const sum = latencies.reduce((a, b) => a + b, 0);
  return {
    id: spec.id,
    concurrency: spec.concurrency,
    count: latencies.length,
    errors,
    warmupErrors,
    totalOk,
    errorSamples,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: sorted.length ? sorted[sorted.length - 1]! : NaN,
    mean: latencies.length ? sum / latencies.length : NaN,
    rps: windowMs > 0 ? (latencies.length * 1000) / windowMs : 0,
    windowMs,
    loadCpuMs: cpuAtWindow ? (cpu.user + cpu.system) / 1000 : NaN,
    cacheHits,
    ...(spec.recordRequestIds ? { answeredIds, answeredWithoutId } : {}),
    ...(failureSpan ? { failureSpanMs: failureSpan.map((t) => Number(t - windowStart) / 1e6) as [number, number] } : {}),
  };
}

if (process.send) {
  process.on('message', (msg: { type?: string } & RunSpec) => {
    if (msg?.type !== 'run') return;
    runStep(msg, () => process.send?.({ type: 'window', id: msg.id })).then(
      (result) => process.send?.({ type: 'result', id: msg.id, result }),
      (err: Error) => process.send?.({ type: 'failed', id: msg.id, message: err.stack ?? err.message }),
    );
  });
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
  process.send({ type: 'ready' });
}
