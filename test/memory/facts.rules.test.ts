import { expect } from 'chai';
import { extractByRules, isQuestion, splitSentences, submissionLanguage, withdrawnStatement, withdraws } from '../../src/memory/factRules.js';

const personal = (content: string, userRef = 'user-1') =>
  extractByRules({ content, userRef, language: submissionLanguage(content, 'auto') });
const shared = (content: string) => extractByRules({ content, userRef: null, language: submissionLanguage(content, 'auto') });

describe('facts: the rule-based extractor', () => {
  it('cuts sentences at stops and lines, not after abbreviations', () => {
    expect(splitSentences('Dr. Jansen is my GP. I live in Delft.\n- I have a cat\n- I have a dog', 'en')).to.deep.equal([
      'Dr. Jansen is my GP.',
      'I live in Delft.',
      'I have a cat',
      'I have a dog',
    ]);
    expect(splitSentences('Ik heb bijv. twee katten. Ze heten Tom en Jerry.', 'nl')).to.deep.equal([
      'Ik heb bijv. twee katten.',
      'Ze heten Tom en Jerry.',
    ]);
    expect(splitSentences('I pay by email. cust-42 pays by post.', 'en')).to.deep.equal(['I pay by email.', 'cust-42 pays by post.']);
  });

  it('cuts a line of abbreviations and stops in linear time, keeping abbreviations inside sentences', () => {
    // Each piece used to be tested with all of the sentence so far: 100,000 characters of
    // "a. a. …" took over 10 s. ("Dr. " is cut by ICU first, whose iteration in Node 20 grows with
    // the square of the segments; a submission's 10,000 characters keep that to milliseconds.)
    for (const [piece, length] of [['a. ', 100_000], ['e.g. ', 100_000], ['Dr. ', 10_000]] as const) {
      const line = piece.repeat(Math.ceil(length / piece.length));
      const started = performance.now();
      const sentences = splitSentences(line, 'en');
      const elapsed = performance.now() - started;
      expect(elapsed, `${piece}: ${Math.round(elapsed)} ms`).to.be.below(3_000);
      expect(sentences.join(' ')).to.equal(line.trim());
    }
    expect(splitSentences('I saw Dr. Jansen, prof. Smit and mr. Bos. They agreed.', 'en')).to.deep.equal([
      'I saw Dr. Jansen, prof. Smit and mr. Bos.',
      'They agreed.',
    ]);
  });

  it('knows questions, with or without a question mark', () => {
    for (const q of ['Where do I park?', 'Do you know a good dentist', 'Heb je tijd morgen', 'Est-ce que tu viens', 'Kannst du mir helfen', 'What is my balance', 'Wat is mijn saldo']) {
      expect(isQuestion(q), q).to.equal(true);
    }
    for (const s of ['When I was young I lived in Ghent.', 'What I like most is cycling.', 'I wonder about nothing.']) {
      expect(isQuestion(s), s).to.equal(false);
    }
  });

  it('keeps first-person statements and drops greetings, questions, filler and requests', () => {
    expect(
      personal('Hi Anna, I am a teacher. Thanks! Can you remind me tomorrow? Tell me a joke. I have a question. OK. It is sunny today.'),
    ).to.deep.equal(['I am a teacher.']);
    expect(personal('Hallo ik ben Sofie en ik werk bij de gemeente')).to.deep.equal(['Ik ben Sofie en ik werk bij de gemeente']);
    expect(personal('Please note that I am vegan. FYI my flat is on the 3rd floor.')).to.deep.equal([
      'I am vegan.',
      'My flat is on the 3rd floor.',
    ]);
  });

  it('does not mistake words for greetings', () => {
    expect(personal('Thanks to my job I travel a lot.')).to.deep.equal(['Thanks to my job I travel a lot.']);
    expect(personal('Lieber trinke ich Tee als Kaffee.')).to.deep.equal(['Lieber trinke ich Tee als Kaffee.']);
  });

  it('tells Dutch "je" (you) from French "je" (I)', () => {
    expect(personal('Je hebt een mooie fiets gekocht.')).to.deep.equal([]);
    expect(personal("Je travaille à Nantes depuis deux ans.")).to.deep.equal(["Je travaille à Nantes depuis deux ans."]);
  });

  it('keeps statements naming the user: the user_ref, an introduced name, or "the customer"', () => {
    expect(personal('My name is Bram. Bram works at the harbour. Piet works there too.')).to.deep.equal([
      'My name is Bram.',
      'Bram works at the harbour.',
    ]);
    expect(personal('cust-42 owns two cars. The customer prefers email. De klant woont in Gouda.', 'cust-42')).to.deep.equal([
      'cust-42 owns two cars.',
      'The customer prefers email.',
      'De klant woont in Gouda.',
    ]);
  });

  it('keeps every statement for shared knowledge, still without questions and greetings', () => {
    expect(shared('Hello everyone! Our office is closed on Sundays. Refunds take 14 days. When do we open? Thanks.')).to.deep.equal([
      'Our office is closed on Sundays.',
      'Refunds take 14 days.',
    ]);
  });

  it('reads what a statement withdraws, in four languages: its first clause without the negation, and nothing of a comparison', () => {
    expect(withdrawnStatement('I no longer live in Leiden.')).to.equal('I live in Leiden');
    expect(withdrawnStatement("I don't smoke anymore.")).to.equal('I smoke');
    expect(withdrawnStatement("I don't live in Leiden any longer, I moved to Utrecht.")).to.equal('I live in Leiden');
    expect(withdrawnStatement('Ik woon niet meer in Leiden.')).to.equal('Ik woon in Leiden');
    expect(withdrawnStatement('Ik heb geen auto meer.')).to.equal('Ik heb een auto');
    expect(withdrawnStatement('Ich wohne nicht mehr in Berlin.')).to.equal('Ich wohne in Berlin');
    expect(withdrawnStatement('Ich habe keinen Hund mehr.')).to.equal('Ich habe einen Hund');
    expect(withdrawnStatement("Je n'habite plus à Lyon.")).to.equal('Je habite à Lyon');
    const none = ['I live in Leiden.', 'I do not like coffee.', 'Ik woon in Leiden.', 'Je ne sais pas.', 'no longer '.repeat(40)];
    // Comparisons: "no more than" withdraws nothing.
    none.push('My commute is no longer than 20 minutes.', 'Ich habe nicht mehr als zwei Kinder.', 'Het duurt niet meer dan een uur.');
    for (const sentence of none) expect(withdrawnStatement(sentence), sentence).to.equal(undefined);
  });

  it('withdraws a fact that says what was withdrawn, not one that only shares its words (QA: "I no longer have a dog" deleted "I am allergic to dogs")', () => {
    const withdrawn = (sentence: string, fact: string) => withdraws(withdrawnStatement(sentence)!, fact);
    expect(withdrawn('I no longer live in Leiden.', 'I live in Leiden, in the Netherlands.')).to.equal(true);
    expect(withdrawn('I no longer live in Leiden.', 'i live in leiden')).to.equal(true);
    expect(withdrawn("I'm no longer a student.", 'I am a student.')).to.equal(true);
    expect(withdrawn('I no longer work.', 'I work at Philips.')).to.equal(true);
    expect(withdrawn("Je n'habite plus à Leiden.", "J'habite à Leiden.")).to.equal(true);
    expect(withdrawn('Ich habe keinen Hund mehr.', 'Ich habe einen Hund.')).to.equal(true);
    for (const [sentence, fact] of [
      ['I no longer have a dog.', 'I am allergic to dogs.'],
      ['I no longer live in Leiden.', 'My parents live in Leiden.'],
      ['I no longer live in Leiden.', 'I lived in Leiden for ten years before I moved to Delft.'],
      ['I no longer smoke.', 'My mother died of lung cancer from smoking.'],
      ['I no longer eat meat.', "I don't eat meat."],
      ['I no longer eat meat.', 'I no longer eat meat.'],
      ['Shop no longer ships to Belgium.', 'Returns from Belgium to shop ship free of charge.'],
      ['Ik woon niet meer in Leiden.', 'Mijn ouders wonen in Leiden.'],
    ]) {
      expect(withdrawn(sentence!, fact!), `${sentence} / ${fact}`).to.equal(false);
    }
  });

  it('keeps a statement once per submission', () => {
    expect(personal('I live in Delft. I live in Delft!')).to.deep.equal(['I live in Delft.']);
  });
});
