// The load generator of bench/gateway.ts, in its own process so that its CPU use shows on its
// own and it never shares an event loop with a server it measures. Closed loop: `concurrency`
// workers, each on its own keep-alive socket of an undici Pool, send a request, read the whole
// answer, and send the next. Each request is timed with process.hrtime.bigint() from just before
// it is dispatched to the last byte of the answer.
//
// A step is a warm-up (not recorded) and then a measuring window; workers start no request once
// the window is over, and the step is also bounded by a request count. Every answer must be a 200
// whose body holds "choices"; anything else (or a transport error) counts as an error.
//
// Protocol (IPC): parent sends {type:'run', ...RunSpec}; child sends {type:'window', id} when the
// warm-up ends and {type:'result', id, result} when the step is done.
import { Pool, type Dispatcher } from 'undici';

export interface RunSpec {
  id: number;
  /** e.g. http://127.0.0.1:8080 */
  origin: string;
  path: string;
  headers: Record<string, string>;
  model: string;
  concurrency: number;
  warmupMs: number;
  windowMs: number;
  /** Upper bound on the requests one step sends (warm-up included). */
  maxRequests: number;
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
}

// Unique content per request (a counter, plus a nonce per process) so that no request hits the
// gateway's response cache, even across runs against the same database.
const nonce = Math.random().toString(36).slice(2, 10);
let counter = 0;

function bodyOf(model: string): string {
  counter++;
  return `{"model":${JSON.stringify(model)},"messages":[{"role":"user","content":"Bench ${nonce}-${counter}: reply with a short greeting."}]}`;
}

interface Outcome {
  ok: boolean;
  detail?: string;
}

const CHOICES = Buffer.from('"choices"');

/** One request through the dispatcher API: no Readable per response, so the generator stays light. */
class OneRequest implements Dispatcher.DispatchHandler {
  private status = 0;
  private parts: Buffer[] = [];
  constructor(private readonly done: (o: Outcome) => void) {}

  onRequestStart(): void {}
  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
  }
  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.parts.push(chunk);
  }
  onResponseEnd(): void {
    const body = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    if (this.status === 200 && body.includes(CHOICES)) this.done({ ok: true });
    else this.done({ ok: false, detail: `HTTP ${this.status}: ${body.toString('utf8', 0, 300)}` });
  }
  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    this.done({ ok: false, detail: `${err.name}: ${err.message}` });
  }
}

function send(pool: Pool, spec: RunSpec): Promise<Outcome> {
  return new Promise((resolve) => {
    try {
      pool.dispatch(
        { origin: spec.origin, path: spec.path, method: 'POST', headers: spec.headers, body: bodyOf(spec.model), headersTimeout: 15_000, bodyTimeout: 15_000 },
        new OneRequest(resolve),
      );
    } catch (err) {
      resolve({ ok: false, detail: (err as Error).message });
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
