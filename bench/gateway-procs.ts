// Child processes and /proc readings for bench/gateway.ts: every process the bench starts is
// registered here so that one call (on success, error or Ctrl-C) ends them all, by their own ids.
import { fork, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { request } from 'undici';

/** Linux USER_HZ: /proc CPU times are in these ticks. 100 on every mainstream kernel. */
const TICKS_PER_SECOND = 100;

export interface Managed {
  name: string;
  child: ChildProcess;
  /** Started in its own process group (npx and the server it runs): the whole group is signalled. */
  group: boolean;
}

const managed: Managed[] = [];

export function manage(name: string, child: ChildProcess, group = false): Managed {
  const m = { name, child, group };
  managed.push(m);
  child.once('exit', () => {
    const i = managed.indexOf(m);
    if (i >= 0) managed.splice(i, 1);
  });
  return m;
}

/** Forks one of the bench's own compiled helpers (dist/bench/gateway-*.js) with an IPC channel. */
export function forkHelper(name: string, script: string, env: NodeJS.ProcessEnv = {}, execArgv: string[] = []): Managed {
  const child = fork(script, [], {
    env: { ...process.env, ...env },
    execArgv: ['--enable-source-maps', ...execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return manage(name, child);
}

export function spawnManaged(name: string, command: string, args: string[], options: SpawnOptions & { group?: boolean }): Managed {
  const { group = false, ...rest } = options;
  const child = spawn(command, args, { ...rest, detached: group });
  return manage(name, child, group);
}

/** Resolves with the first IPC message of the given type(s) (or rejects when the child exits first). */
export function nextMessage<T extends { type: string }>(child: ChildProcess, type: string | string[], timeoutMs = 30_000): Promise<T> {
  const types = Array.isArray(type) ? type : [type];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`no "${types.join('" or "')}" message within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (msg: unknown) => {
      const got = typeof msg === 'object' && msg !== null ? (msg as { type?: unknown }).type : undefined;
      if (typeof got === 'string' && types.includes(got)) done(undefined, msg as T);
    };
    const onExit = (code: number | null, signal: string | null) =>
      done(new Error(`exited (${signal ?? `code ${code}`}) before sending "${types.join(`" or "`)}"`));
    const done = (err?: Error, msg?: T) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(msg!);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function signal(m: Managed, sig: NodeJS.Signals): void {
  const pid = m.child.pid;
  if (pid === undefined) return;
  try {
    if (m.group) process.kill(-pid, sig);
    else m.child.kill(sig);
  } catch {
    // already gone
  }
}

/** SIGTERM (graceful: the gateway writes its CPU profile then), then SIGKILL after graceMs. */
export async function stop(m: Managed, graceMs = 8_000): Promise<void> {
  const alive = m.child.exitCode === null && m.child.signalCode === null;
  if (alive) {
    signal(m, 'SIGTERM');
    const timer = new Promise<'timeout'>((resolve) => setTimeout(resolve, graceMs, 'timeout').unref());
    if ((await Promise.race([exited(m.child), timer])) === 'timeout') {
      signal(m, 'SIGKILL');
      await exited(m.child);
    }
  }
  // npx's server outlives npx itself: the rest of its process group goes as well.
  if (m.group) signal(m, 'SIGKILL');
}

export async function stopAll(): Promise<void> {
  const all = [...managed];
  await Promise.all(all.map((m) => stop(m)));
}

/** The pids of every registered process, with their descendants (npx's server, for one). */
export function managedPids(): number[] {
  const pids: number[] = [];
  for (const m of managed) {
    const pid = m.child.pid;
    if (pid === undefined) continue;
    pids.push(pid, ...(m.group ? descendantsOf(pid) : []));
  }
  return pids;
}

/** Synchronous last resort (process 'exit'): SIGKILL whatever is still registered. */
export function killAllNow(): void {
  for (const m of [...managed]) signal(m, 'SIGKILL');
}

/** Runs a bench's main(): its children are killed when it fails or is interrupted, and the exit code says which. */
export function runBench(main: () => Promise<void>): void {
  process.on('SIGINT', () => {
    killAllNow();
    process.exit(130);
  });
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      killAllNow();
      process.exit(1);
    },
  );
}

// ---- /proc ----------------------------------------------------------------------------------

/** VmHWM (peak resident set) and VmRSS in MiB, or undefined when the process is gone. */
export function memoryOf(pid: number): { hwmMiB: number; rssMiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { hwmMiB: kb('VmHWM') / 1024, rssMiB: kb('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

/** User + system CPU time of a process so far, in milliseconds (0 when it is gone). */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The whole machine: busy and total jiffies over all cores (from the first line of /proc/stat). */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

export function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/** Every living descendant of a process (children first, breadth-first). */
export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const parent = parentOf(pid);
    if (parent === undefined) continue;
    const list = children.get(parent) ?? [];
    list.push(pid);
    children.set(parent, list);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    for (const c of children.get(pid) ?? []) {
      out.push(c);
      queue.push(c);
    }
  }
  return out;
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** CPU ms so far of each of these processes. */
export function cpuOfPids(pids: number[]): Map<number, number> {
  return new Map(pids.map((pid) => [pid, cpuMsOf(pid)]));
}

/** CPU ms these processes used between two readings (a process new in `after` counts from 0). */
export function cpuDelta(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of after) sum += Math.max(0, ms - (before.get(pid) ?? 0));
  return sum;
}

/** Every PostgreSQL server process on the machine (postmaster, backends, WAL writer, …). */
export function postgresPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** CPU ms so far of every PostgreSQL process on the machine (all databases, other people's too). */
export function postgresCpuMs(): Map<number, number> {
  return cpuOfPids(postgresPids());
}

/** CPU ms the PostgreSQL processes used between two postgresCpuMs() readings. */
export const postgresCpuDelta = cpuDelta;

/** Polls `url` until it answers 200; fails when `child` exits first or at the deadline. */
export async function waitHttpOk(url: string, child: Managed, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  for (;;) {
    if (child.child.exitCode !== null || child.child.signalCode !== null) {
      throw new Error(`${child.name} exited (${child.child.signalCode ?? `code ${child.child.exitCode}`}) before it was ready`);
    }
    try {
      const res = await request(url, { headersTimeout: 2000, bodyTimeout: 2000 });
      const text = await res.body.text();
      if (res.statusCode === 200) return;
      last = `HTTP ${res.statusCode} ${text.slice(0, 200)}`;
    } catch (err) {
      last = (err as Error).message; // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${child.name} not ready at ${url} within ${Math.round(timeoutMs / 1000)} s (last: ${last})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
