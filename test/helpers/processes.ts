import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { fromRoot } from '../../src/paths.js';

const execFileAsync = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a compiled entry point (dist/src/...) as its own process, the way npm scripts do. */
export async function runScript(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [fromRoot('dist', script), ...args], {
      cwd: fromRoot(),
      env: { ...process.env, ...env },
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failure = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failure.code ?? -1, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

// Processes a test started and has not seen exit: killed when the test run exits, so that a hook
// that failed before the one that stops them (a "before all" that could not connect) leaves none
// running, holding the database's connections, for the hour they would take to notice.
const running = new Map<ChildProcess, () => void>();
process.on('exit', () => {
  for (const kill of running.values()) kill();
});

function tracked(child: ChildProcess, kill: () => void): ChildProcess {
  running.set(child, kill);
  child.once('exit', () => running.delete(child));
  return child;
}

export function startProcess(script: string, env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [fromRoot('dist', script)], {
    cwd: fromRoot(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  tracked(child, () => child.kill('SIGKILL'));
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** A TCP port free at the time of the call. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Every process below `pid` (children, grandchildren …), with its command line. */
export async function descendants(pid: number): Promise<{ pid: number; command: string }[]> {
  const { stdout } = await execFileAsync('ps', ['-A', '-o', 'pid=,ppid=,command=']);
  const rows = stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), command: match[3]! }));
  const found: { pid: number; command: string }[] = [];
  const parents = [pid];
  while (parents.length > 0) {
    const parent = parents.pop()!;
    for (const row of rows.filter((r) => r.ppid === parent)) {
      found.push({ pid: row.pid, command: row.command });
      parents.push(row.pid);
    }
  }
  return found;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts scripts/run-processes.sh (npm start's last step) in a process group of its own, as a
 * terminal's foreground job is; `command` runs it another way (e.g. through npm).
 */
export function startRunner(
  env: NodeJS.ProcessEnv,
  command: { file: string; args: string[]; cwd?: string } = { file: 'bash', args: ['scripts/run-processes.sh'] },
): { child: ChildProcess; output: () => string } {
  const child = spawn(command.file, command.args, {
    cwd: command.cwd ?? fromRoot(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  // Its own process group: the runner and what it started go together.
  tracked(child, () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Gone already.
    }
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}
