import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { waitFor } from './db.js';
import { exited, startProcess } from './processes.js';

// Several web and worker processes of the Procfile on one database, each on its own ports, as an
// operator scales them out. For tests that need more than one process of a kind.

export interface RunningProcess {
  child: ChildProcess;
  /** Everything it wrote on stdout and stderr so far. */
  output(): string;
}

export interface WebProcess extends RunningProcess {
  /** e.g. http://127.0.0.1:31234 */
  url: string;
}

export interface WorkerProcess extends RunningProcess {
  /** Its GET /metrics listener (METRICS_PORT), e.g. http://127.0.0.1:31235/metrics */
  metricsUrl: string;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url);
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** Starts dist/src/server.js on a free port and waits until /readyz answers 200. */
export async function startWeb(env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<WebProcess> {
  const port = await freePort();
  const { child, output } = startProcess('src/server.js', { LOG_LEVEL: 'warn', ...env, PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await answers(`${url}/readyz`)) || !isRunning(child), { timeoutMs, what: `web on ${port}` });
  if (!isRunning(child)) throw new Error(`web on ${port} exited:\n${output()}`);
  return { child, output, url };
}

/**
 * Starts dist/src/worker.js with its metrics listener on a free port, and waits until it runs
 * graphile-worker and answers /metrics.
 */
export async function startWorker(env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<WorkerProcess> {
  const port = await freePort();
  const { child, output } = startProcess('src/worker.js', { LOG_LEVEL: 'info', ...env, METRICS_PORT: String(port) });
  const metricsUrl = `http://127.0.0.1:${port}/metrics`;
  await waitFor(async () => (output().includes('worker running') && (await answers(metricsUrl))) || !isRunning(child), {
    timeoutMs,
    what: `worker with metrics on ${port}`,
  });
  if (!isRunning(child)) throw new Error(`worker with metrics on ${port} exited:\n${output()}`);
  return { child, output, metricsUrl };
}

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`; resolves once it has exited. */
export async function stopProcess(process: RunningProcess, graceMs = 15_000): Promise<void> {
  if (!isRunning(process.child)) return;
  const done = exited(process.child);
  process.child.kill('SIGTERM');
  const timer = setTimeout(() => process.child.kill('SIGKILL'), graceMs);
  await done;
  clearTimeout(timer);
}
