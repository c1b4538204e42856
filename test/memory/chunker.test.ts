import { expect } from 'chai';
import { countTokens } from '../../src/gateway/tokens.js';
import { ChunkLimitExceeded, chunkText, type Chunk } from '../../src/memory/chunker.js';
import { prose } from './documentsFixture.js';

const OPTIONS = { maxTokens: 512, overlapTokens: 64 };

/** Every chunk is a slice of the text, and together they cover all of it, in order, without gaps. */
function expectCoverage(text: string, chunks: Chunk[]): void {
  let covered = 0;
  for (const chunk of chunks) {
    expect(text.slice(chunk.start, chunk.end).trim()).to.equal(chunk.text);
    if (chunk.start > covered) expect(text.slice(covered, chunk.start).trim()).to.equal('');
    expect(chunk.end).to.be.greaterThan(covered);
    covered = chunk.end;
  }
  expect(text.slice(covered).trim()).to.equal('');
}

describe('chunkText', () => {
  it('keeps a short text whole', () => {
    const chunks = chunkText('  Een korte tekst.\n\nMet twee alinea’s.  ', OPTIONS);
    expect(chunks.map((c) => c.text)).to.deep.equal(['Een korte tekst.\n\nMet twee alinea’s.']);
    expect(chunks[0]!.tokens).to.equal(countTokens(chunks[0]!.text));
  });

  it('gives nothing for an empty or blank text', () => {
    expect(chunkText('', OPTIONS)).to.deep.equal([]);
    expect(chunkText(' \n\n\t ', OPTIONS)).to.deep.equal([]);
  });

  it('never makes a chunk over the limit, whatever the text', () => {
    const texts = [
      prose(100_000, 'nl'),
      prose(30_000, 'fr'),
      'word '.repeat(5_000),
      `${'x'.repeat(20_000)} ${'https://example.com/'.repeat(500)}`,
      '😀'.repeat(3_000),
      'Ein Satz.\n'.repeat(2_000),
      'a. '.repeat(5_000),
    ];
    for (const limit of [512, 100, 37]) {
      for (const text of texts) {
        const chunks = chunkText(text, { maxTokens: limit, overlapTokens: Math.floor(limit / 8) });
        expect(chunks.length).to.be.greaterThan(0);
        for (const chunk of chunks) {
          expect(chunk.tokens).to.equal(countTokens(chunk.text));
          expect(chunk.tokens, `limit ${limit}`).to.be.at.most(limit);
        }
        expectCoverage(text, chunks);
      }
    }
  });

  it('fills chunks to about the target size', () => {
    const chunks = chunkText(prose(50_000, 'en'), OPTIONS);
    const average = chunks.reduce((sum, c) => sum + c.tokens, 0) / chunks.length;
    expect(average).to.be.within(380, 512);
  });

  it('ends chunks at paragraph ends when that leaves them at least half full', () => {
    // Paragraphs of ~100 tokens: every chunk ends at the end of a paragraph.
    const paragraph = (i: number) => `Paragraph ${i}. ${'This sentence is about nothing in particular. '.repeat(10).trim()}`;
    const text = Array.from({ length: 40 }, (_, i) => paragraph(i)).join('\n\n');
    const chunks = chunkText(text, OPTIONS);
    expect(chunks.length).to.be.greaterThan(5);
    for (const chunk of chunks.slice(0, -1)) {
      expect(text.slice(chunk.end - 2, chunk.end), JSON.stringify(chunk.text.slice(-30))).to.equal('\n\n');
    }
  });

  it('otherwise ends chunks at sentence ends', () => {
    // One long paragraph: chunks end after a full stop, never inside a sentence.
    const text = Array.from({ length: 300 }, (_, i) => `Sentence number ${i} tells a little more about the policy.`).join(' ');
    const chunks = chunkText(text, OPTIONS);
    expect(chunks.length).to.be.greaterThan(3);
    for (const chunk of chunks) expect(chunk.text).to.match(/^Sentence number \d+ .*policy\.$/s);
  });

  it('repeats about 64 tokens of whole sentences from the end of the previous chunk', () => {
    const text = Array.from({ length: 300 }, (_, i) => `Sentence number ${i} tells a little more about the policy.`).join(' ');
    const chunks = chunkText(text, OPTIONS);
    for (let i = 1; i < chunks.length; i += 1) {
      const previous = chunks[i - 1]!;
      const current = chunks[i]!;
      expect(current.start).to.be.below(previous.end);
      const overlap = text.slice(current.start, previous.end).trim();
      expect(previous.text.endsWith(overlap)).to.equal(true);
      expect(countTokens(overlap)).to.be.within(40, 64);
      expect(overlap).to.match(/^Sentence number \d+/);
    }
  });

  it('cuts a sentence longer than a chunk at word boundaries, keeping the overlap', () => {
    const words = Array.from({ length: 3_000 }, (_, i) => `woord${i}`);
    const text = `${words.join(' ')}.`;
    const chunks = chunkText(text, OPTIONS);
    expect(chunks.length).to.be.greaterThan(5);
    const known = new Set(words.map((w, i) => (i === words.length - 1 ? `${w}.` : w)));
    for (const chunk of chunks) {
      expect(chunk.tokens).to.be.at.most(512);
      for (const word of chunk.text.split(' ')) expect(known.has(word), word).to.equal(true);
    }
    for (let i = 1; i < chunks.length; i += 1) expect(chunks[i]!.start).to.be.below(chunks[i - 1]!.end);
    expectCoverage(text, chunks);
  });

  it('cuts a single word longer than a chunk (base64, a long URL) by tokens', () => {
    const blob = Buffer.from(Array.from({ length: 12_000 }, (_, i) => (i * 7919) % 256)).toString('base64');
    const chunks = chunkText(`Bijlage: ${blob} Einde.`, OPTIONS);
    expect(chunks.length).to.be.greaterThan(2);
    for (const chunk of chunks) expect(chunk.tokens).to.be.at.most(512);
    expect(chunks.map((c) => c.text).join('')).to.contain(blob.slice(0, 1000));
  });
});

// A document is whatever a caller uploads (up to 100,000 characters), and chunking it holds a
// worker. Before the patterns were made linear, 100,000 characters of "." took minutes (about a
// second per 10,000 characters squared); each of these now takes well under a second.
describe('chunkText on hostile text', () => {
  const SIZE = 100_000;
  const repeated = (piece: string, length = SIZE) => piece.repeat(Math.ceil(length / piece.length)).slice(0, length);
  const shapes: Record<string, string> = {
    'a run of full stops': repeated('.'),
    'a run of mixed terminal punctuation': repeated('!?…'),
    'punctuation and closing quotes, no space': repeated('."'),
    'one giant word': repeated('a'),
    'one giant base64 word': repeated('QWxhZGRpbjpvcGVuIHNlc2FtZQ'),
    'CJK text without spaces': repeated('漢字'),
    'two words around a run of spaces': `x${repeated(' ', SIZE - 2)}y`,
    'a sentence and a run of trailing whitespace': `End.${repeated('\t ', SIZE - 4)}`,
    'a word and a run of line ends and spaces': `word${repeated('\n ', SIZE - 5)}y`,
    'only line ends': repeated('\n'),
    'short lines': repeated('x\n'),
    'blank lines with spaces': repeated('\n \n'),
    'a line end and a run of spaces': `\n${repeated(' ', SIZE - 2)}x`,
    'mixed punctuation, line ends and quotes': repeated('a.\n \n!? ”'),
    'a run of full stops ending in a space': `${repeated('.', SIZE - 1)} `,
  };
  for (const [shape, text] of Object.entries(shapes)) {
    it(`cuts ${shape} in linear time into sane chunks`, () => {
      expect(text).to.have.length(SIZE);
      const started = performance.now();
      const chunks = chunkText(text, OPTIONS);
      const elapsed = performance.now() - started;
      // A liveness bound, generous for a shared machine: quadratic work took minutes here.
      expect(elapsed, `${Math.round(elapsed)} ms`).to.be.below(5_000);
      const tokens = countTokens(text);
      for (const chunk of chunks) {
        expect(chunk.text).not.to.equal('');
        expect(chunk.tokens).to.equal(countTokens(chunk.text));
        expect(chunk.tokens).to.be.at.most(512);
      }
      expectCoverage(text, chunks);
      // Filled chunks, not a flood of slivers: at least ~200 new tokens each, on average.
      expect(chunks.length).to.be.at.most(Math.ceil(tokens / 200) + 1);
      if (text.trim() !== '') expect(chunks.length).to.be.greaterThan(0);
    });
  }

  it('stops with ChunkLimitExceeded once its time budget is spent, checking between steps', () => {
    // A counter that spends a millisecond per call: without the budget this text takes seconds.
    const slowCount = (piece: string) => {
      const until = performance.now() + 1;
      while (performance.now() < until);
      return countTokens(piece);
    };
    const started = performance.now();
    let thrown: unknown;
    try {
      chunkText(prose(50_000, 'en'), { ...OPTIONS, countTokens: slowCount, timeBudgetMs: 100 });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).to.be.instanceOf(ChunkLimitExceeded);
    expect((thrown as ChunkLimitExceeded).limit).to.equal('time');
    expect((thrown as Error).message).to.match(/more than 100 ms/);
    // One step past the budget at most (a step counts one sentence, word or slice).
    expect(performance.now() - started).to.be.below(1_000);
  });

  it('stops with ChunkLimitExceeded when the text makes more chunks than allowed', () => {
    const text = prose(20_000, 'en');
    const all = chunkText(text, OPTIONS);
    expect(all.length).to.be.greaterThan(5);
    expect(chunkText(text, { ...OPTIONS, maxChunks: all.length })).to.deep.equal(all);
    expect(() => chunkText(text, { ...OPTIONS, maxChunks: 5 }))
      .to.throw(ChunkLimitExceeded, /more than 5 chunks/)
      .with.property('limit', 'chunks');
  });
});
