import { expect } from 'chai';
import { cosineSimilarity, embedText } from '../../src/gateway/providers/local/embed.js';
import { contentHash, duplicateThreshold, normalizeFact } from '../../src/memory/facts.js';

// Pins the near-duplicate threshold of local/embed-1024 (src/memory/facts.ts) to the pairs it
// was chosen on: a change of the embedder or of the threshold that merges different facts, or
// stops merging restatements, fails here.
describe('facts: near-duplicate threshold for local/embed-1024', () => {
  const threshold = duplicateThreshold('local/embed-1024');
  const similarity = (a: string, b: string) => cosineSimilarity(embedText(a), embedText(b));

  const restatements: [string, string][] = [
    ['I am allergic to peanuts.', "I'm allergic to peanuts."],
    ['I am vegetarian.', "I'm a vegetarian."],
    ['My daughter goes to school in Leiden.', 'My daughter goes to a school in Leiden.'],
    ['I use an iPhone.', 'I use an iPhone 15.'],
    ['I work as a nurse in Utrecht.', 'I work as a nurse in Utrecht now.'],
    ['I live in Amsterdam with my wife.', 'I live in Amsterdam with my wife and kids.'],
    ['I like coffee.', 'I do not like coffee.'],
    ['My policy number ends in 123.', 'My policy number ends in 456.'],
    ["J'habite à Lyon.", "J'habite a Lyon."],
    ['Mein Lieblingsessen ist Pizza.', 'Mein Lieblingsessen ist Pizza!'],
  ];
  const differentFacts: [string, string][] = [
    ['My mother lives in Ghent.', 'My father lives in Ghent.'],
    ['My son plays football.', 'My son plays tennis.'],
    ['I live in Amsterdam.', 'I live in Rotterdam.'],
    ['My wife is called Anna.', 'My daughter is called Anna.'],
    ['Mijn vrouw heet Anna.', 'Mijn dochter heet Anna.'],
    ["J'aime le café.", "J'aime le thé."],
    ['My dog is called Max.', 'My cat is called Max.'],
    ['I prefer to be contacted by email.', 'I prefer to be contacted by phone.'],
    ['Ik woon in Utrecht.', 'Ik werk in Utrecht.'],
    ['Ich wohne in Berlin.', 'Ich arbeite in Berlin.'],
  ];

  for (const [a, b] of restatements) {
    it(`merges "${a}" and "${b}"`, () => {
      expect(similarity(a, b)).to.be.at.least(threshold);
    });
  }
  for (const [a, b] of differentFacts) {
    it(`keeps "${a}" and "${b}" apart`, () => {
      expect(similarity(a, b)).to.be.below(threshold);
    });
  }

  it('treats texts equal after folding case, accents, spacing and punctuation as the same fact', () => {
    expect(normalizeFact('  J’habite   à LYON !')).to.equal('j habite a lyon');
    expect(contentHash('I use an iPhone.').equals(contentHash('i use an IPHONE!!'))).to.equal(true);
    expect(contentHash('I use an iPhone.').equals(contentHash('I use an iPad.'))).to.equal(false);
  });

  it('is stricter for a model it was not measured on', () => {
    expect(duplicateThreshold('some/other-embed')).to.be.greaterThan(threshold);
  });
});
