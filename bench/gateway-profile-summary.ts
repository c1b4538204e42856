/**
 * Reads a V8 .cpuprofile (from `node --cpu-prof`, e.g. `npm run bench:gateway -- --profile`) and
 * prints where the time went:
 *  - the share of (non-idle) time by owner: our code, node internals, pg, koa, undici, ajv, pino,
 *    other packages, V8 builtins, garbage collection;
 *  - the top functions by self time (file:line function);
 *  - the top functions of our own code by inclusive time (what they and their callees cost).
 *
 *   node dist/bench/gateway-profile-summary.js <file.cpuprofile> [--top 25] [--all]
 *
 * When bench/gateway.ts wrote <file>.window.json beside the profile, only the samples taken while
 * the load ran are counted (start-up, module loading and schema compilation left out); --all
 * counts every sample.
 */
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { fromRoot } from '../src/paths.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const PACKAGES: Record<string, string[]> = {
  pg: ['pg', 'pg-pool', 'pg-protocol', 'pg-types', 'pg-connection-string', 'pgpass', 'pg-int8', 'pg-cloudflare', 'postgres-array', 'postgres-bytea', 'postgres-date', 'postgres-interval', 'split2', 'pgvector'],
  koa: ['koa', '@koa/router', 'koa-compose', 'http-errors', 'statuses', 'delegates', 'cookies', 'keygrip', 'content-type', 'content-disposition', 'type-is', 'mime-types', 'mime-db', 'media-typer', 'accepts', 'negotiator', 'on-finished', 'ee-first', 'encodeurl', 'escape-html', 'fresh', 'vary', 'only', 'depd', 'http-assert', 'destroy', 'path-to-regexp', 'setprototypeof', 'toidentifier', 'inherits', 'deep-equal'],
  undici: ['undici'],
  ajv: ['ajv', 'ajv-formats', 'fast-deep-equal', 'fast-uri', 'json-schema-traverse', 'require-from-string'],
  pino: ['pino', 'pino-std-serializers', 'sonic-boom', '@pinojs/redact', 'fast-redact', 'quick-format-unescaped', 'thread-stream', 'atomic-sleep', 'on-exit-leak-free', 'safe-stable-stringify', 'pino-abstract-transport', 'process-warning', 'real-require', 'fast-safe-stringify'],
};
const PACKAGE_OWNER = new Map(Object.entries(PACKAGES).flatMap(([owner, names]) => names.map((n) => [n, owner] as const)));

export const OWNERS = ['polder (ours)', 'node internals', 'pg', 'koa', 'undici', 'ajv', 'pino', 'other packages', 'V8 builtins / native', 'garbage collector', 'program (unattributed)'] as const;

function packageOf(url: string): string | undefined {
  const at = url.lastIndexOf('/node_modules/');
  if (at < 0) return undefined;
  const rest = url.slice(at + '/node_modules/'.length).split('/');
  return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
}

export function ownerOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName === '(garbage collector)') return 'garbage collector';
    if (functionName === '(program)') return 'program (unattributed)';
    // Ajv's compiled validators are made with new Function: no script URL, named validateNN.
    if (/^validate\d+$/.test(functionName)) return 'ajv';
    return 'V8 builtins / native';
  }
  if (url.startsWith('node:')) return 'node internals';
  const pkg = packageOf(url);
  if (pkg) return PACKAGE_OWNER.get(pkg) ?? 'other packages';
  if (url.includes('/dist/src/') || url.includes('/dist/tasks/') || url.includes('/src/')) return 'polder (ours)';
  return 'other packages';
}

function shortUrl(url: string): string {
  if (!url) return '';
  let path = url.startsWith('file://') ? decodeURIComponent(url.slice('file://'.length)) : url;
  const at = path.lastIndexOf('/node_modules/');
  if (at >= 0) return path.slice(at + '/node_modules/'.length);
  const root = fromRoot('/');
  if (path.startsWith(root)) path = path.slice(root.length);
  return path;
}

function label(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  const file = shortUrl(frame.url);
  return file ? `${file}:${frame.lineNumber + 1} ${name}` : name;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  busyMs: number;
  /** Self time of the native writev (socket writes); on a busy machine mostly waiting for a core. */
  writevMs: number;
  /** share: of busy time; shareWithoutWritev: of busy time less writev. */
  owners: { owner: string; ms: number; share: number; shareWithoutWritev: number }[];
  topSelf: { label: string; owner: string; ms: number; share: number }[];
  topOursInclusive: { label: string; ms: number; share: number }[];
}

/** Only samples taken between these two instants (µs on the profile's clock, CLOCK_MONOTONIC,
 *  the same as process.hrtime()), e.g. the load window, leaving start-up out. */
export interface SampleWindow {
  fromUs: number;
  toUs: number;
}

export function summarize(profile: CpuProfile, top = 25, window?: SampleWindow): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  // Sample i lasts until sample i+1 (timeDeltas[i+1], in µs); the last gets the mean.
  const n = profile.samples.length;
  const mean = n > 0 ? (profile.endTime - profile.startTime) / n : 0;
  let at = profile.startTime;
  for (let i = 0; i < n; i++) {
    at += profile.timeDeltas[i]!;
    if (window && (at < window.fromUs || at > window.toUs)) continue;
    const dt = i + 1 < n ? profile.timeDeltas[i + 1]! : mean;
    const id = profile.samples[i]!;
    self.set(id, (self.get(id) ?? 0) + Math.max(0, dt));
  }
  let total = 0;
  let idle = 0;
  for (const [id, us] of self) {
    total += us;
    if (byId.get(id)?.callFrame.functionName === '(idle)') idle += us;
  }
  const busy = total - idle;

  const owners = new Map<string, number>();
  const selfByLabel = new Map<string, { owner: string; us: number }>();
  let writev = 0;
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    if (frame.functionName === 'writev' && !frame.url) writev += us;
    const owner = ownerOf(frame);
    owners.set(owner, (owners.get(owner) ?? 0) + us);
    const key = label(frame);
    const entry = selfByLabel.get(key) ?? { owner, us: 0 };
    entry.us += us;
    selfByLabel.set(key, entry);
  }

  // Inclusive time per function (recursion counted once), walking the call tree from the root.
  const inclusive = new Map<string, number>();
  const subtree = new Map<number, number>();
  const root = profile.nodes[0]!;
  const order: ProfileNode[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    order.push(node);
    for (const c of node.children ?? []) stack.push(byId.get(c)!);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i]!;
    let sum = node.callFrame.functionName === '(idle)' ? 0 : (self.get(node.id) ?? 0);
    for (const c of node.children ?? []) sum += subtree.get(c) ?? 0;
    subtree.set(node.id, sum);
  }
  const active = new Map<string, number>();
  const visit = (node: ProfileNode) => {
    const key = ownerOf(node.callFrame) === 'polder (ours)' ? label(node.callFrame) : undefined;
    if (key) {
      if (!active.get(key)) inclusive.set(key, (inclusive.get(key) ?? 0) + (subtree.get(node.id) ?? 0));
      active.set(key, (active.get(key) ?? 0) + 1);
    }
    for (const c of node.children ?? []) visit(byId.get(c)!);
    if (key) active.set(key, active.get(key)! - 1);
  };
  visit(root);

  const share = (us: number) => (busy > 0 ? us / busy : 0);
  return {
    totalMs: total / 1000,
    idleMs: idle / 1000,
    busyMs: busy / 1000,
    writevMs: writev / 1000,
    owners: [...owners.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([owner, us]) => {
        const own = owner === 'V8 builtins / native' ? us - writev : us;
        return { owner, ms: us / 1000, share: share(us), shareWithoutWritev: busy > writev ? own / (busy - writev) : 0 };
      }),
    topSelf: [...selfByLabel.entries()]
      .sort((a, b) => b[1].us - a[1].us)
      .slice(0, top)
      .map(([l, e]) => ({ label: l, owner: e.owner, ms: e.us / 1000, share: share(e.us) })),
    topOursInclusive: [...inclusive.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, Math.min(top, 20))
      .map(([l, us]) => ({ label: l, ms: us / 1000, share: share(us) })),
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1).padStart(5)} %`;
const ms = (x: number) => x.toFixed(0).padStart(7);

export function formatSummary(file: string, s: ProfileSummary, window?: SampleWindow): string {
  const lines: string[] = [];
  lines.push(`profile ${file}${window ? ' (samples of the load window only, start-up left out)' : ' (all samples)'}`);
  lines.push(`  sampled ${(s.totalMs / 1000).toFixed(1)} s, idle ${(s.idleMs / 1000).toFixed(1)} s, busy ${(s.busyMs / 1000).toFixed(1)} s (shares below are of busy time)`);
  lines.push('');
  lines.push(`  self time by owner (last column: without writev, ${(s.writevMs / 1000).toFixed(1)} s, which on a busy machine is mostly waiting for a core)`);
  for (const o of s.owners) lines.push(`    ${o.owner.padEnd(26)} ${ms(o.ms)} ms ${pct(o.share)}   ${pct(o.shareWithoutWritev)}`);
  lines.push('');
  lines.push('  top functions by self time');
  for (const f of s.topSelf) lines.push(`    ${pct(f.share)} ${ms(f.ms)} ms  ${f.owner.padEnd(22)} ${f.label}`);
  lines.push('');
  lines.push('  our functions by inclusive time (self + callees)');
  for (const f of s.topOursInclusive) lines.push(`    ${pct(f.share)} ${ms(f.ms)} ms  ${f.label}`);
  return lines.join('\n');
}

/** The load window bench/gateway.ts wrote beside the profile (<file>.window.json), if any. */
export function windowOf(file: string): SampleWindow | undefined {
  if (!existsSync(`${file}.window.json`)) return undefined;
  return JSON.parse(readFileSync(`${file}.window.json`, 'utf8')) as SampleWindow;
}

export function summarizeFile(file: string, top = 25, { all = false }: { all?: boolean } = {}): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const window = all ? undefined : windowOf(file);
  return formatSummary(file, summarize(profile, top, window), window);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
  const all = args.includes('--all');
  const files = args.filter((a, i) => !a.startsWith('--') && (topAt < 0 || i !== topAt + 1));
  if (files.length === 0) {
    process.stderr.write('usage: node dist/bench/gateway-profile-summary.js <file.cpuprofile> [--top N] [--all]\n');
    process.exit(2);
  }
  for (const file of files) process.stdout.write(`${summarizeFile(file, top, { all })}\n\n`);
}
