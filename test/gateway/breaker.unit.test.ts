import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CircuitBreaker,
  NEUTRAL,
  retryAfterMs,
  SUCCESS,
  verdictOf,
  type Admission,
  type CircuitState,
  type Verdict,
} from '../../src/gateway/breaker.js';
import { CatalogError, DEFAULT_CIRCUIT, loadCatalog, type CircuitSettings } from '../../src/gateway/catalog.js';
import { UpstreamError } from '../../src/gateway/providers/types.js';

// The breaker's state machine on an injected clock: no sockets, no waiting.

const FAILURE: Verdict = { kind: 'failure' };

function harness(settings: Partial<CircuitSettings> = {}, random = () => 0) {
  let now = 1_000_000;
  const states: CircuitState[] = [];
  const opens: string[] = [];
  const breaker = new CircuitBreaker(
    { ...DEFAULT_CIRCUIT, ...settings },
    { now: () => now, random, onState: (s) => states.push(s), onOpen: (r) => opens.push(r) },
  );
  return {
    breaker,
    states,
    opens,
    get now() {
      return now;
    },
    advance(ms: number) {
      now += ms;
    },
    /** admit() and, when admitted, record the verdict at once. */
    call(verdict: Verdict): Admission {
      const admission = breaker.admit();
      if (admission.admitted) breaker.record(admission, verdict);
      return admission;
    },
    fail(times: number) {
      for (let i = 0; i < times; i++) expect(this.call(FAILURE).admitted, `failure ${i + 1} admitted`).to.equal(true);
    },
    /** How long the circuit stays open from now: the retryAt of a refused admit. */
    openFor(): number {
      const a = breaker.admit();
      if (a.admitted) throw new Error('the circuit admitted a call');
      return a.retryAt - now;
    },
  };
}

describe('circuit breaker (state machine)', () => {
  it('stays closed below the threshold and opens on the 5th consecutive failure', () => {
    const h = harness();
    h.fail(4);
    expect(h.breaker.current).to.equal('closed');
    expect(h.breaker.admit()).to.deep.equal({ admitted: true, probe: false });
    h.fail(1);
    expect(h.breaker.current).to.equal('open');
    expect(h.opens).to.deep.equal(['failures']);
    expect(h.openFor()).to.equal(10_000);
  });

  it('counts only consecutive failures: a success, or a 4xx answer, resets the count', () => {
    const h = harness();
    h.fail(4);
    h.call(SUCCESS);
    h.fail(4);
    h.call(verdictOf(new UpstreamError('status', 'bad request', { status: 400 })));
    h.fail(4);
    expect(h.breaker.current).to.equal('closed');
    h.fail(1);
    expect(h.breaker.current).to.equal('open');
  });

  it('neither counts nor resets on a client abort or a 429 without retry-after', () => {
    const h = harness();
    h.fail(4);
    h.call(verdictOf(new UpstreamError('aborted', 'gone')));
    h.call(verdictOf(new UpstreamError('status', 'slow down', { status: 429 })));
    expect(h.breaker.current).to.equal('closed');
    h.fail(1);
    expect(h.breaker.current).to.equal('open');
  });

  it('after the cooldown lets exactly one probe through; others skip it meanwhile; success closes', () => {
    const h = harness();
    h.fail(5);
    h.advance(9_999);
    expect(h.breaker.admit()).to.deep.equal({ admitted: false, retryAt: h.now + 1 });
    h.advance(1);
    const probe = h.breaker.admit();
    expect(probe).to.deep.equal({ admitted: true, probe: true });
    expect(h.breaker.current).to.equal('half_open');
    for (let i = 0; i < 3; i++) expect(h.breaker.admit()).to.deep.equal({ admitted: false, retryAt: h.now });
    h.breaker.record(probe, SUCCESS);
    expect(h.breaker.current).to.equal('closed');
    expect(h.breaker.admit()).to.deep.equal({ admitted: true, probe: false });
    expect(h.states).to.deep.equal(['open', 'half_open', 'closed']);
  });

  it('a failed probe reopens with the cooldown doubled, up to the maximum; success resets it', () => {
    const h = harness();
    h.fail(5);
    const seen: number[] = [];
    for (let i = 0; i < 7; i++) {
      const open = h.openFor();
      seen.push(open);
      h.advance(open);
      const probe = h.breaker.admit();
      expect(probe.admitted).to.equal(true);
      h.breaker.record(probe, FAILURE);
    }
    expect(seen).to.deep.equal([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
    expect(h.opens.filter((r) => r === 'probe_failed')).to.have.length(7);

    h.advance(h.openFor());
    h.call(SUCCESS);
    expect(h.breaker.current).to.equal('closed');
    h.fail(5);
    expect(h.openFor()).to.equal(10_000);
  });

  it('a probe that decides nothing (the client left) leaves it half-open for the next request to probe', () => {
    const h = harness();
    h.fail(5);
    h.advance(10_000);
    const probe = h.breaker.admit();
    h.breaker.record(probe, NEUTRAL);
    expect(h.breaker.current).to.equal('half_open');
    expect(h.breaker.admit()).to.deep.equal({ admitted: true, probe: true });
  });

  it('jitters each open between 80 % and 100 % of its cooldown', () => {
    for (const [random, expected] of [
      [0, 10_000],
      [0.5, 9_000],
      [0.999999, 8_000],
    ] as const) {
      const h = harness({}, () => random);
      h.fail(5);
      expect(h.openFor()).to.be.closeTo(expected, 1);
    }
  });

  it('does not let failures of calls admitted before it opened extend or double the open', () => {
    const h = harness({ failures: 2 });
    const late = [h.breaker.admit(), h.breaker.admit(), h.breaker.admit()];
    for (const a of late.slice(0, 2)) h.breaker.record(a, FAILURE);
    expect(h.breaker.current).to.equal('open');
    h.advance(1_000);
    h.breaker.record(late[2]!, FAILURE);
    expect(h.openFor()).to.equal(9_000);
    expect(h.opens).to.have.length(1);
  });

  it('a 429 with retry-after opens it until then (capped at the maximum cooldown), then probes', () => {
    const h = harness();
    h.call(verdictOf(new UpstreamError('status', 'slow down', { status: 429, retryAfter: '2' }), h.now));
    expect(h.breaker.current).to.equal('open');
    expect(h.opens).to.deep.equal(['rate_limited']);
    expect(h.openFor()).to.equal(2_000);
    h.advance(2_000);
    expect(h.call(SUCCESS)).to.deep.equal({ admitted: true, probe: true });
    expect(h.breaker.current).to.equal('closed');

    const capped = harness({ maxCooldownMs: 60_000 });
    capped.call(verdictOf(new UpstreamError('status', 'slow down', { status: 429, retryAfter: '86400' }), capped.now));
    expect(capped.openFor()).to.equal(60_000);
  });

  it('is off with failures: 0', () => {
    const h = harness({ failures: 0 });
    h.fail(100);
    h.call(verdictOf(new UpstreamError('status', 'slow down', { status: 429, retryAfter: '60' }), h.now));
    expect(h.breaker.enabled).to.equal(false);
    expect(h.breaker.current).to.equal('closed');
    expect(h.breaker.admit()).to.deep.equal({ admitted: true, probe: false });
  });

  it('reads failures: connection errors, timeouts, 5xx, 408 and malformed answers count; 4xx is an answer', () => {
    const e = (kind: ConstructorParameters<typeof UpstreamError>[0], status?: number) =>
      verdictOf(new UpstreamError(kind, 'x', status === undefined ? {} : { status }));
    expect(e('connect').kind).to.equal('failure');
    expect(e('timeout').kind).to.equal('failure');
    expect(e('protocol').kind).to.equal('failure');
    expect(e('status', 500).kind).to.equal('failure');
    expect(e('status', 503).kind).to.equal('failure');
    expect(e('status', 408).kind).to.equal('failure');
    expect(e('status', 400).kind).to.equal('success');
    expect(e('status', 404).kind).to.equal('success');
    expect(e('aborted').kind).to.equal('neutral');
    expect(verdictOf(new Error('a bug of ours')).kind).to.equal('neutral');
  });

  it('reads retry-after as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    expect(retryAfterMs('2', now)).to.equal(now + 2_000);
    expect(retryAfterMs(' 1.5 ', now)).to.equal(now + 1_500);
    expect(retryAfterMs('Thu, 26 Nov 2026 10:00:30 GMT', now)).to.equal(now + 30_000);
    expect(retryAfterMs('0', now)).to.equal(undefined);
    expect(retryAfterMs('soon', now)).to.equal(undefined);
    expect(retryAfterMs(undefined, now)).to.equal(undefined);
  });
});

describe('circuit settings in the catalogue', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'polder-breaker-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));
  let files = 0;
  const catalogue = (providers: string) => {
    const file = join(scratch, `catalog-${++files}.yaml`);
    writeFileSync(
      file,
      `providers:
${providers}
  - {id: local, region: eu, kind: local}
models:
  - {id: local/echo, type: chat, context_length: 1000, pricing: {prompt: 0, completion: 0}, endpoints: [{provider: local, upstream_model: echo}]}
services: {firewall_per_1k_tokens: 0, retrieval_per_call: 0, ingest_per_chunk: 0}
`,
    );
    return file;
  };
  const failure = (providers: string): string => {
    try {
      loadCatalog({ file: catalogue(providers), env: {} });
    } catch (err) {
      expect(err).to.be.instanceOf(CatalogError);
      return (err as Error).message;
    }
    throw new Error('the catalogue loaded, but it should not have');
  };

  it('defaults to 5 failures, 10 s doubling up to 5 min; a partial override keeps the other defaults', () => {
    const c = loadCatalog({
      file: catalogue(`  - {id: plain, region: eu, kind: openai, base_url: "http://127.0.0.1:1/v1"}
  - {id: tuned, region: eu, kind: openai, base_url: "http://127.0.0.1:2/v1", circuit: {failures: 2, cooldown_ms: 200}}
  - {id: off, region: eu, kind: openai, base_url: "http://127.0.0.1:3/v1", circuit: {failures: 0}}`),
      env: {},
    });
    expect(DEFAULT_CIRCUIT).to.deep.equal({ failures: 5, cooldownMs: 10_000, maxCooldownMs: 300_000 });
    expect(c.providers.get('plain')!.circuit).to.deep.equal(DEFAULT_CIRCUIT);
    expect(c.providers.get('tuned')!.circuit).to.deep.equal({ failures: 2, cooldownMs: 200, maxCooldownMs: 300_000 });
    expect(c.providers.get('off')!.circuit).to.deep.equal({ failures: 0, cooldownMs: 10_000, maxCooldownMs: 300_000 });
    expect(c.providers.get('local')!.circuit).to.equal(undefined);
  });

  it('refuses bad values at start, naming the field', () => {
    const message = failure(`  - {id: a, region: eu, kind: openai, base_url: "http://127.0.0.1:1/v1", circuit: {failures: -1, cooldown_ms: 0, after: 3}}
  - {id: c, region: eu, kind: openai, base_url: "http://127.0.0.1:3/v1", circuit: {failures: 2.5}}`);
    expect(message).to.include('providers.0 (a).circuit.failures must be >= 0');
    expect(message).to.include('providers.0 (a).circuit.cooldown_ms must be >= 1');
    expect(message).to.include('providers.0 (a).circuit.after is not a known field');
    expect(message).to.include('providers.1 (c).circuit.failures must be integer');
  });

  it('refuses a maximum below the cooldown, and a circuit on a local provider', () => {
    const message = failure(`  - {id: b, region: eu, kind: openai, base_url: "http://127.0.0.1:2/v1", circuit: {cooldown_ms: 60000, max_cooldown_ms: 1000}}
  - {id: here, region: eu, kind: local, circuit: {failures: 1}}`);
    expect(message).to.include('providers.0 (b).circuit.max_cooldown_ms (1000) must not be below circuit.cooldown_ms (60000)');
    expect(message).to.include('providers.1 (here).circuit is not used by a local provider');
  });
});
