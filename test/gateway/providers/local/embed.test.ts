import { expect } from 'chai';
import {
  LOCAL_EMBED_DIMENSIONS,
  cosineSimilarity,
  embedBatch,
  embedText,
  normalizeForEmbedding,
  toNumberArray,
} from '../../../../src/gateway/providers/local/embed.js';

function norm(v: Float32Array): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

function sim(a: string, b: string): number {
  return cosineSimilarity(embedText(a), embedText(b));
}

function sameVector(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Passages ranked by similarity to the query, best first. */
function rank(query: string, passages: Record<string, string>): string[] {
  const q = embedText(query);
  return Object.entries(passages)
    .map(([id, text]) => ({ id, score: cosineSimilarity(q, embedText(text)) }))
    .sort((x, y) => y.score - x.score)
    .map((r) => r.id);
}

const KNOWN_TEXT = 'Polder keeps your memories in the EU. Verzekering opzeggen? Résilier l’assurance!';

describe('local/embed-1024', () => {
  describe('shape and determinism', () => {
    it('returns 1024-dimensional Float32Arrays', () => {
      const v = embedText('hello world');
      expect(LOCAL_EMBED_DIMENSIONS).to.equal(1024);
      expect(v).to.be.instanceOf(Float32Array);
      expect(v.length).to.equal(1024);
    });

    it('is deterministic: same text gives an identical vector', () => {
      const a = embedText(KNOWN_TEXT);
      embedText('something else in between, to dirty the scratch buffers');
      const b = embedText(KNOWN_TEXT);
      expect(sameVector(a, b)).to.equal(true);
    });

    it('matches the snapshot of a known text (guards the hashing scheme)', () => {
      const v = embedText(KNOWN_TEXT);
      const nonZero: Array<[number, number]> = [];
      for (let i = 0; i < v.length && nonZero.length < 6; i++) if (v[i] !== 0) nonZero.push([i, v[i]!]);
      // If this fails after an intentional change of features/hashing/weights,
      // every stored local/embed-1024 vector is invalidated: bump the model id
      // (e.g. local/embed-1024-v2) and re-embed, then update the snapshot.
      const expected: Array<[number, number]> = SNAPSHOT;
      expect(nonZero.map(([i]) => i)).to.deep.equal(expected.map(([i]) => i));
      nonZero.forEach(([, x], j) => expect(x).to.be.closeTo(expected[j]![1], 1e-6));
    });

    it('returns unit-norm vectors for normal text', () => {
      for (const t of [
        'a',
        'hello',
        KNOWN_TEXT,
        'Het weer is mooi vandaag.',
        'Das Wetter ist heute schön.',
        'x'.repeat(5000),
        'word '.repeat(3000),
        '数据保护 ist wichtig',
      ]) {
        expect(Math.abs(1 - norm(embedText(t))), t.slice(0, 20)).to.be.lessThan(1e-5);
      }
    });

    it('returns a fixed, finite, non-zero vector for empty or punctuation-only text', () => {
      const empty = embedText('');
      expect(empty.length).to.equal(1024);
      expect(Array.from(empty).every((x) => Number.isFinite(x))).to.equal(true);
      expect(Math.abs(1 - norm(empty))).to.be.lessThan(1e-6);
      for (const t of ['   ', '?!…', '— -- ***', '\n\t', '😀🎉']) {
        expect(sameVector(embedText(t), empty), JSON.stringify(t)).to.equal(true);
      }
      // Returned vectors are fresh copies: mutating one does not leak.
      empty[0] = 42;
      expect(embedText('')[0]).to.equal(1 / 32);
    });

    it('handles long documents (~512-token chunks and beyond) deterministically', () => {
      const doc = Array.from({ length: 400 }, (_, i) => `zin ${i} over de verzekeringspolis nummer ${i * 7}.`).join(' ');
      const small = embedText(KNOWN_TEXT);
      const a = embedText(doc); // > 2k distinct features: the scratch table grows mid-text
      const b = embedText(doc);
      expect(sameVector(a, b)).to.equal(true);
      expect(Math.abs(1 - norm(a))).to.be.lessThan(1e-5);
      expect(sameVector(embedText(KNOWN_TEXT), small)).to.equal(true);
    });

    it('handles very large inputs (table grows, then shrinks back) without changing later results', () => {
      const small = embedText(KNOWN_TEXT);
      let x = 12345;
      const words: string[] = [];
      for (let i = 0; i < 20000; i++) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        words.push(`w${(x >>> 8).toString(36)}`);
      }
      const big = words.join(' ');
      const a = embedText(big);
      expect(Math.abs(1 - norm(a))).to.be.lessThan(1e-5);
      expect(sameVector(embedText(KNOWN_TEXT), small)).to.equal(true);
      expect(sameVector(embedText(big), a)).to.equal(true);
    });
  });

  describe('normalisation', () => {
    it('folds accents: "é" and "e" give the same features', () => {
      expect(sameVector(embedText('café résumé'), embedText('cafe resume'))).to.equal(true);
      expect(sameVector(embedText('Kündigung über'), embedText('kundigung uber'))).to.equal(true);
      expect(sameVector(embedText('één ÉÉN'), embedText('een een'))).to.equal(true);
    });

    it('lower-cases, folds ß/œ and ligatures', () => {
      expect(sameVector(embedText('HELLO World'), embedText('hello world'))).to.equal(true);
      expect(sameVector(embedText('Straße'), embedText('strasse'))).to.equal(true);
      expect(sameVector(embedText('cœur'), embedText('coeur'))).to.equal(true);
      expect(normalizeForEmbedding('ﬁnancieel Œuvre')).to.equal('financieel oeuvre');
    });

    it('per-character folding tables agree with the string-level reference normalisation', () => {
      for (const t of [
        KNOWN_TEXT,
        'Ærøskøbing, Łódź, Þórshöfn; İstanbul — ΣΟΦΟΣ σοφος… ﬁnale ½ ㎏ Ｆｕｌｌｗｉｄｔｈ',
        'Dépôt de garantie: 1.250 €. Überweisung bis zum 3. März!',
        'e\u0301te\u0301 (decomposed) vs été',
        'verzeke\u00adringen zero\u200dwidth',
      ]) {
        expect(sameVector(embedText(t), embedText(normalizeForEmbedding(t))), t).to.equal(true);
      }
      expect(sameVector(embedText('verzeke\u00adringen'), embedText('verzekeringen'))).to.equal(true);
    });

    it('splits on non-letter/digit characters', () => {
      expect(sameVector(embedText('foo-bar_baz'), embedText('foo bar baz'))).to.equal(true);
      expect(sameVector(embedText('l’assurance'), embedText("l'assurance"))).to.equal(true);
    });
  });

  describe('quality: inflections', () => {
    it('scores the Dutch example as required', () => {
      expect(sim('verzekering opzeggen', 'verzekeringen opzeggen')).to.be.greaterThan(0.6);
      expect(sim('verzekering opzeggen', 'het weer is mooi vandaag')).to.be.lessThan(0.2);
    });

    const cases: Array<{ lang: string; pairs: Array<[string, string]>; unrelated: Array<[string, string]> }> = [
      {
        lang: 'nl',
        pairs: [
          ['verzekering', 'verzekeringen'],
          ['mijn verzekering opzeggen', 'verzekeringen opgezegd'],
          ['de zorgverzekering', 'zorgverzekeringen'],
        ],
        unrelated: [
          ['verzekering', 'voetbalwedstrijd'],
          ['mijn verzekering opzeggen', 'de soep koken met uien'],
        ],
      },
      {
        lang: 'de',
        pairs: [
          ['Versicherung', 'Versicherungen'],
          ['die Versicherung kündigen', 'Versicherungen gekündigt'],
          ['Krankenversicherung', 'Krankenversicherungen'],
        ],
        unrelated: [
          ['Versicherung', 'Fußballspiel'],
          ['die Versicherung kündigen', 'das Wetter ist heute schön'],
        ],
      },
      {
        lang: 'fr',
        pairs: [
          ['assuré', 'assurée'],
          ['assuré', 'assurance'],
          ["résilier l'assurance", 'résiliation des assurances'],
        ],
        unrelated: [
          ['assurance', 'football'],
          ["résilier l'assurance", 'il fait beau aujourd’hui'],
        ],
      },
      {
        lang: 'en',
        pairs: [
          ['insurance', 'insurances'],
          ['cancel my insurance', 'cancelled insurances'],
          ['policy holder', 'policyholders'],
        ],
        unrelated: [
          ['insurance', 'weather'],
          ['cancel my insurance', 'the weather is nice today'],
        ],
      },
    ];

    for (const { lang, pairs, unrelated } of cases) {
      it(`${lang}: inflection pairs score clearly higher than unrelated pairs`, () => {
        const maxUnrelated = Math.max(...unrelated.map(([a, b]) => sim(a, b)));
        expect(maxUnrelated, 'unrelated').to.be.lessThan(0.2);
        for (const [a, b] of pairs) {
          const s = sim(a, b);
          expect(s, `${a} ~ ${b}`).to.be.greaterThan(0.3);
          expect(s - maxUnrelated, `${a} ~ ${b} margin`).to.be.greaterThan(0.25);
        }
      });
    }
  });

  describe('quality: retrieval', () => {
    const fixtures: Array<{ lang: string; query: string; passages: Record<string, string> }> = [
      {
        lang: 'en',
        query: 'How do I cancel my insurance policy?',
        passages: {
          insurance:
            'You can cancel your insurance policy at any time after the first year. Send the cancellation to us in writing; the policy ends one month later.',
          weather: 'Tomorrow will be sunny in the morning, with a chance of showers and a strong westerly wind in the afternoon.',
          cooking: 'Chop the onions finely and fry them in butter until golden, then add the garlic and simmer the sauce for ten minutes.',
          football: 'The home side won the match 3-1 after a late goal in the second half, and the coach praised the defence.',
        },
      },
      {
        lang: 'nl',
        query: 'Hoe zeg ik mijn verzekering op?',
        passages: {
          insurance:
            'U kunt uw verzekeringspolis na het eerste jaar op elk moment opzeggen. Stuur de opzegging schriftelijk; de verzekering eindigt een maand later.',
          weather: 'Morgen wordt het zonnig, maar in de middag is er kans op een bui en staat er een stevige westenwind.',
          cooking: 'Snijd de uien fijn en fruit ze in boter tot ze goudbruin zijn; voeg daarna de knoflook toe en laat de saus tien minuten sudderen.',
          football: 'De thuisploeg won de wedstrijd met 3-1 dankzij een laat doelpunt in de tweede helft; de trainer prees de verdediging.',
        },
      },
      {
        lang: 'de',
        query: 'Wie kann ich meine Versicherung kündigen?',
        passages: {
          insurance:
            'Sie können Ihren Versicherungsvertrag nach dem ersten Jahr jederzeit kündigen. Die Kündigung muss schriftlich erfolgen; die Versicherung endet einen Monat später.',
          weather: 'Morgen wird es sonnig, am Nachmittag sind jedoch Schauer und ein kräftiger Westwind möglich.',
          cooking: 'Die Zwiebeln fein hacken und in Butter goldbraun braten, dann den Knoblauch zugeben und die Soße zehn Minuten köcheln lassen.',
          football: 'Die Heimmannschaft gewann das Spiel dank eines späten Tores in der zweiten Halbzeit mit 3:1; der Trainer lobte die Abwehr.',
        },
      },
      {
        lang: 'fr',
        query: 'Comment résilier mon contrat d’assurance ?',
        passages: {
          insurance:
            'Vous pouvez résilier votre assurance à tout moment après la première année. Envoyez la résiliation par écrit ; le contrat prend fin un mois plus tard.',
          weather: 'Demain, le temps sera ensoleillé, mais des averses et un fort vent d’ouest sont possibles dans l’après-midi.',
          cooking: 'Émincez finement les oignons et faites-les dorer dans le beurre, puis ajoutez l’ail et laissez mijoter la sauce dix minutes.',
          football: 'L’équipe locale a gagné le match 3-1 grâce à un but tardif en seconde période ; l’entraîneur a salué la défense.',
        },
      },
    ];

    for (const { lang, query, passages } of fixtures) {
      it(`${lang}: ranks the insurance-cancellation passage first for "${query}"`, () => {
        const ranking = rank(query, passages);
        expect(ranking[0]).to.equal('insurance');
        const q = embedText(query);
        const top = cosineSimilarity(q, embedText(passages['insurance']!));
        for (const id of ['weather', 'cooking', 'football']) {
          const other = cosineSimilarity(q, embedText(passages[id]!));
          expect(top - other, `${lang} insurance vs ${id}`).to.be.greaterThan(0.1);
        }
      });
    }

    it('cross-lingual near-duplicates are still closer than unrelated topics (cognates/shared n-grams)', () => {
      // Not a requirement of a lexical model, just a sanity check of n-gram sharing.
      expect(sim('insurance policy', 'assurance police')).to.be.greaterThan(sim('insurance policy', 'football match'));
    });
  });

  describe('batch and JSON helpers', () => {
    it('embedBatch equals per-item embedText', () => {
      const texts = ['', KNOWN_TEXT, 'verzekering opzeggen', 'Das Wetter ist heute schön.', KNOWN_TEXT, '?!'];
      const batch = embedBatch(texts);
      expect(batch.length).to.equal(texts.length);
      texts.forEach((t, i) => expect(sameVector(batch[i]!, embedText(t)), `item ${i}`).to.equal(true));
      expect(embedBatch([])).to.deep.equal([]);
    });

    it('toNumberArray keeps ~7 significant digits and short JSON', () => {
      const v = embedText(KNOWN_TEXT);
      const arr = toNumberArray(v);
      expect(arr.length).to.equal(1024);
      arr.forEach((x, i) => {
        expect(typeof x).to.equal('number');
        expect(Math.abs(x - v[i]!)).to.be.at.most(Math.abs(v[i]!) * 1e-6 + 1e-12);
      });
      for (const s of JSON.stringify(arr).slice(1, -1).split(',')) {
        const digits = s.replace(/^-?0\.0*/, '').replace(/[-.]/g, '').replace(/e.*$/, '');
        expect(digits.length, s).to.be.at.most(7);
      }
      expect(toNumberArray(new Float32Array([0, 1, -0.5, 0.1, 1e-9, 123456789]))).to.deep.equal([
        0, 1, -0.5, 0.1, 1e-9, 123456800,
      ]);
    });
  });
});

// First six non-zero components of embedText(KNOWN_TEXT) for local/embed-1024.
const SNAPSHOT: Array<[number, number]> = [
  [10, -0.0645206],
  [19, 0.07437295],
  [31, 0.06897542],
  [34, -0.127484],
  [38, -0.08161281],
  [42, -0.06897542],
];
