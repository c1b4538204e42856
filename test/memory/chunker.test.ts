import { expect } from 'chai';
import { countTokens } from '../../src/gateway/tokens.js';
import { chunkText, type Chunk } from '../../src/memory/chunker.js';
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
