import { expect } from 'chai';
import { closeSync, openSync, readSync } from 'node:fs';
import { createFirewall } from '../../src/firewall/firewall.js';
import { SLICE_CHARS } from '../../src/firewall/slices.js';
import { ADVERSARIAL } from './adversarial.js';

// The firewall's cost is bounded for any text (issue 18): linear in the text, with its costly steps
// on a budget and long texts read in slices that give the event loop its turn. These are liveness
// properties, with deadlines far above what the firewall needs; the figures are in
// bench/firewall.ts (npm run bench:firewall -- --worst).

/**
 * Milliseconds the calling thread has spent on a CPU (Linux), so that a deadline is about the
 * firewall's work and not about the other processes of a busy machine; wall time elsewhere.
 */
function threadClock(): () => number {
  try {
    const fd = openSync('/proc/thread-self/schedstat', 'r');
    closeSync(fd);
    return () => {
      const file = openSync('/proc/thread-self/schedstat', 'r');
      const buf = Buffer.alloc(96);
      const n = readSync(file, buf, 0, buf.length, 0);
      closeSync(file);
      return Number(buf.toString('latin1', 0, n).split(' ')[0]) / 1e6;
    };
  } catch {
    return () => performance.now();
  }
}

const cpuMs = threadClock();

// Real identifiers, each on a line of its own, placed at the start, the middle and the end.
const IDENTIFIERS = '\nMijn naam is Xiomara Okafor, mail xiomara.okafor@example.nl, IBAN NL91ABNA0417164300, bel +32 470 12 34 56.\n';
const VALUES = ['Xiomara', 'Okafor', 'xiomara.okafor@example.nl', 'NL91ABNA0417164300', '470 12 34 56'];

function withIdentifiers(text: string): string {
  const middle = Math.floor(text.length / 2);
  return IDENTIFIERS + text.slice(0, middle) + IDENTIFIERS + text.slice(middle) + IDENTIFIERS;
}

describe('the firewall on adversarial texts', function () {
  this.timeout(120_000);

  describe('1 MB of each pattern', () => {
    const SIZE = 1_000_000;
    const DEADLINE_MS = 2_000;
    for (const { name, make } of ADVERSARIAL) {
      it(`${name}: masked within ${DEADLINE_MS} ms, with the identifiers in it masked`, () => {
        const text = withIdentifiers(make(SIZE));
        const started = cpuMs();
        const masked = createFirewall({ language: 'auto' }).mask(text);
        const spent = cpuMs() - started;
        expect(spent, 'ms').to.be.below(DEADLINE_MS);
        for (const value of VALUES) expect(masked.includes(value), value).to.equal(false);
      });
    }
  });

  it('masks every number written like a phone number once the budget for the number plan is spent', () => {
    const text = '0612345678 '.repeat(30_000);
    const masked = createFirewall({ language: 'nl' }).mask(text);
    expect(masked).not.to.match(/\d{3}/);
  });

  it("masks every postcode's line once the budget for reading streets is spent", () => {
    const text = 'Keizersgracht 1, 1015 CJ Amsterdam\n'.repeat(20_000);
    const masked = createFirewall({ language: 'nl' }).mask(text);
    expect(masked).not.to.match(/\d{4}|Keizersgracht|Amsterdam/);
  });

  describe('long texts in slices', () => {
    const SENTENCE = 'Mijn naam is Xiomara Okafor, mail xiomara.okafor@example.nl, IBAN NL91 ABNA 0417 1643 00, bel 06-12345678 of +31 20 794 6120.';
    const SENTENCE_VALUES = ['Xiomara', 'Okafor', 'xiomara.okafor@example.nl', 'NL91 ABNA', '12345678', '794 6120'];

    it('masks a value wherever a slice ends in it', () => {
      // Words without a line break: a slice ends after the last space before its nominal end, so
      // moving the sentence across that end cuts it at each of its words in turn.
      for (let shift = 0; shift <= SENTENCE.length + 8; shift += 1) {
        const before = `${'woord '.repeat(Math.ceil((SLICE_CHARS - shift) / 6)).slice(0, SLICE_CHARS - shift - 1)} `;
        const text = `${before}${SENTENCE} ${'woord '.repeat(2_000)}`;
        const masked = createFirewall({ language: 'nl' }).mask(text);
        for (const value of SENTENCE_VALUES) expect(masked.includes(value), `${value} at shift ${shift}`).to.equal(false);
      }
    });

    it('masks a name longer than the context around a slice to its end', () => {
      const text = `Naam: X${'x'.repeat(3 * SLICE_CHARS)} en verder niets.`;
      const masked = createFirewall({ language: 'nl' }).mask(text);
      expect(masked).not.to.match(/xxxx/);
    });

    it('gives the event loop its turn between slices, with the same result as masking in one go', async () => {
      const text = withIdentifiers(ADVERSARIAL.find((a) => a.name === 'mixed')!.make(10 * SLICE_CHARS));
      let pauses = 0;
      const asynchronous = createFirewall({ language: 'auto', pause: async () => void pauses++ });
      const masked = await asynchronous.maskAsync(text);
      expect(pauses).to.be.at.least(10);
      expect(masked).to.equal(createFirewall({ language: 'auto' }).mask(text));

      // Many short texts pause too, once a slice's worth of them has been masked.
      pauses = 0;
      const short = 'Bel Jan de Vries op 06-12345678. '.repeat(30);
      for (let i = 0; i < 200; i++) await asynchronous.maskAsync(short);
      expect(pauses).to.equal(Math.floor(200 / Math.ceil(SLICE_CHARS / short.length)));
    });
  });

  describe('tool-call arguments nested deeply', () => {
    const DEPTH = 50_000;

    it('masks the strings at any depth without exhausting the stack, and restores them', async () => {
      const arrays = `${'['.repeat(DEPTH)}{"to":"jan@example.nl","n":1}${']'.repeat(DEPTH)}`;
      const objects = `${'{"a":'.repeat(DEPTH)}"Bel Jan de Vries op 06-12345678"${'}'.repeat(DEPTH)}`;
      for (const json of [arrays, objects]) {
        const fw = createFirewall({ language: 'nl' });
        const masked = fw.maskToolArguments(json);
        expect(masked).not.to.match(/jan@example|Jan de Vries|12345678/);
        expect(() => JSON.parse(masked)).not.to.throw();
        expect(fw.restoreToolArguments(masked)).to.equal(json);
        expect(await createFirewall({ language: 'nl' }).maskToolArgumentsAsync(json)).to.equal(masked);
      }
    });

    it('masks deeply nested text that is not JSON as text', () => {
      const text = `${'['.repeat(DEPTH)}"jan@example.nl"`;
      expect(createFirewall({ language: 'nl' }).maskToolArguments(text)).to.equal(`${'['.repeat(DEPTH)}"[EMAIL_1]"`);
    });
  });
});
