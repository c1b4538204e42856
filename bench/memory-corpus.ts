/**
 * Deterministic text for the memory benchmark (bench/memory.ts): documents, chunk-sized passages
 * and short queries in Dutch, English, French and German, with a seeded PRNG (no downloads).
 *
 * Sentences are built from the function words and domain words of each language below, plus
 * a few thousand made-up words per language (letters of that language in syllable patterns), drawn
 * as words of real text are: with a Zipf distribution (a few words are in most chunks, most words
 * in few), and by topic (each document has a few hundred words of its own that most of its
 * sentences use). Without the long tail every passage would hold nearly every word, so every query
 * would match a large share of the chunks by full text; without topics every chunk would be about
 * as near to a query as every other, and a nearest-neighbour search would have no neighbourhoods
 * to find. Real collections have both.
 */
import { mulberry32 } from './embed-local.js';

export type Lang = 'nl' | 'en' | 'fr' | 'de';
export const LANGS: Lang[] = ['nl', 'en', 'fr', 'de'];

interface Bank {
  articles: string[];
  nouns: string[];
  adjectives: string[];
  verbs: string[];
  links: string[];
}

export const BANKS: Record<Lang, Bank> = {
  nl: {
    articles: ['de', 'het', 'een', 'uw', 'onze', 'elke'],
    nouns: ['verzekering', 'polis', 'schade', 'dekking', 'premie', 'woning', 'auto', 'reis', 'bagage', 'fiets', 'diefstal', 'brand', 'storm', 'waterschade', 'ruit', 'inboedel', 'opzegtermijn', 'maand', 'klant', 'adres', 'aangifte', 'politie', 'formulier', 'brief', 'contract', 'eigen risico', 'vergoeding', 'expert', 'reparatie', 'tussenpersoon', 'rekening', 'hypotheek', 'lening', 'rente', 'pensioen', 'zorgverzekering', 'tandarts', 'ziekenhuis', 'huisarts', 'apotheek', 'vakantie', 'annulering', 'vlucht', 'hotel', 'camper', 'caravan', 'boot', 'scooter', 'laptop', 'telefoon'],
    adjectives: ['nieuwe', 'oude', 'jaarlijkse', 'maandelijkse', 'volledige', 'beperkte', 'aanvullende', 'wettelijke', 'tijdelijke', 'gestolen', 'beschadigde', 'verzekerde', 'eigen', 'hoge', 'lage'],
    verbs: ['vergoedt', 'dekt', 'meldt', 'wijzigt', 'verlengt', 'beëindigt', 'controleert', 'betaalt', 'beoordeelt', 'vervangt', 'herstelt', 'verhoogt', 'verlaagt', 'bevestigt', 'registreert'],
    links: ['binnen', 'na', 'voor', 'tijdens', 'zonder', 'met', 'bij', 'volgens', 'ondanks', 'vanwege'],
  },
  en: {
    articles: ['the', 'a', 'your', 'our', 'every', 'this'],
    nouns: ['insurance', 'policy', 'damage', 'cover', 'premium', 'home', 'car', 'trip', 'luggage', 'bicycle', 'theft', 'fire', 'storm', 'water damage', 'window', 'contents', 'notice period', 'month', 'customer', 'address', 'police report', 'police', 'form', 'letter', 'contract', 'excess', 'payout', 'assessor', 'repair', 'broker', 'account', 'mortgage', 'loan', 'interest', 'pension', 'health plan', 'dentist', 'hospital', 'doctor', 'pharmacy', 'holiday', 'cancellation', 'flight', 'hotel', 'camper', 'caravan', 'boat', 'scooter', 'laptop', 'phone'],
    adjectives: ['new', 'old', 'annual', 'monthly', 'full', 'limited', 'additional', 'statutory', 'temporary', 'stolen', 'damaged', 'insured', 'own', 'high', 'low'],
    verbs: ['reimburses', 'covers', 'reports', 'changes', 'renews', 'ends', 'checks', 'pays', 'assesses', 'replaces', 'repairs', 'raises', 'lowers', 'confirms', 'registers'],
    links: ['within', 'after', 'before', 'during', 'without', 'with', 'at', 'under', 'despite', 'because of'],
  },
  fr: {
    articles: ['le', 'la', 'un', 'une', 'votre', 'notre', 'chaque'],
    nouns: ['assurance', 'police', 'sinistre', 'garantie', 'prime', 'logement', 'voiture', 'voyage', 'bagage', 'vélo', 'vol', 'incendie', 'tempête', 'dégât des eaux', 'vitre', 'mobilier', 'préavis', 'mois', 'client', 'adresse', 'déclaration', 'gendarmerie', 'formulaire', 'courrier', 'contrat', 'franchise', 'indemnité', 'expert', 'réparation', 'courtier', 'compte', 'hypothèque', 'prêt', 'intérêt', 'retraite', 'mutuelle', 'dentiste', 'hôpital', 'médecin', 'pharmacie', 'vacances', 'annulation', 'vol aérien', 'hôtel', 'camping-car', 'caravane', 'bateau', 'scooter', 'ordinateur', 'téléphone'],
    adjectives: ['nouvelle', 'ancienne', 'annuelle', 'mensuelle', 'complète', 'limitée', 'complémentaire', 'légale', 'temporaire', 'volée', 'endommagée', 'assurée', 'propre', 'élevée', 'faible'],
    verbs: ['rembourse', 'couvre', 'déclare', 'modifie', 'renouvelle', 'résilie', 'vérifie', 'paie', 'évalue', 'remplace', 'répare', 'augmente', 'diminue', 'confirme', 'enregistre'],
    links: ['dans', 'après', 'avant', 'pendant', 'sans', 'avec', 'chez', 'selon', 'malgré', 'pour'],
  },
  de: {
    articles: ['der', 'die', 'das', 'ein', 'eine', 'Ihre', 'unsere', 'jede'],
    nouns: ['Versicherung', 'Police', 'Schaden', 'Deckung', 'Prämie', 'Wohnung', 'Auto', 'Reise', 'Gepäck', 'Fahrrad', 'Diebstahl', 'Brand', 'Sturm', 'Wasserschaden', 'Scheibe', 'Hausrat', 'Kündigungsfrist', 'Monat', 'Kunde', 'Adresse', 'Anzeige', 'Polizei', 'Formular', 'Brief', 'Vertrag', 'Selbstbeteiligung', 'Entschädigung', 'Gutachter', 'Reparatur', 'Makler', 'Konto', 'Hypothek', 'Darlehen', 'Zins', 'Rente', 'Krankenkasse', 'Zahnarzt', 'Krankenhaus', 'Hausarzt', 'Apotheke', 'Urlaub', 'Stornierung', 'Flug', 'Hotel', 'Wohnmobil', 'Wohnwagen', 'Boot', 'Roller', 'Laptop', 'Telefon'],
    adjectives: ['neue', 'alte', 'jährliche', 'monatliche', 'volle', 'begrenzte', 'zusätzliche', 'gesetzliche', 'befristete', 'gestohlene', 'beschädigte', 'versicherte', 'eigene', 'hohe', 'niedrige'],
    verbs: ['erstattet', 'deckt', 'meldet', 'ändert', 'verlängert', 'kündigt', 'prüft', 'zahlt', 'bewertet', 'ersetzt', 'repariert', 'erhöht', 'senkt', 'bestätigt', 'registriert'],
    links: ['innerhalb', 'nach', 'vor', 'während', 'ohne', 'mit', 'bei', 'gemäß', 'trotz', 'wegen'],
  },
};

// Letters of each language: onsets and nuclei of made-up syllables.
const LETTERS: Record<Lang, { onsets: string[]; nuclei: string[]; codas: string[] }> = {
  nl: {
    onsets: ['b', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z', 'sch', 'kr', 'st', 'gr', 'br', 'sl', 'zw'],
    nuclei: ['a', 'e', 'i', 'o', 'u', 'aa', 'ee', 'oo', 'ie', 'oe', 'ui', 'ij', 'eu'],
    codas: ['', '', 'n', 'r', 'l', 'k', 't', 's', 'ng', 'cht', 'rd', 'nk'],
  },
  en: {
    onsets: ['b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'th', 'sh', 'ch', 'st', 'tr', 'pl', 'cl'],
    nuclei: ['a', 'e', 'i', 'o', 'u', 'ea', 'ou', 'oo', 'ai', 'y'],
    codas: ['', '', 'n', 'r', 'l', 'ck', 't', 's', 'ng', 'nd', 'rt', 'st'],
  },
  fr: {
    onsets: ['b', 'c', 'd', 'f', 'g', 'j', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'ch', 'qu', 'tr', 'pr', 'gr', 'bl', 'fr'],
    nuclei: ['a', 'e', 'i', 'o', 'u', 'é', 'è', 'ou', 'ai', 'eau', 'on', 'an', 'ui', 'oi'],
    codas: ['', '', '', 'r', 'l', 's', 'x', 'nt', 'rt', 'c'],
  },
  de: {
    onsets: ['b', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'w', 'z', 'sch', 'st', 'pf', 'kr', 'gr', 'br', 'fl', 'sp'],
    nuclei: ['a', 'e', 'i', 'o', 'u', 'ä', 'ö', 'ü', 'ei', 'au', 'ie', 'eu'],
    codas: ['', '', 'n', 'r', 'l', 'ch', 't', 's', 'ng', 'tz', 'rt', 'nd', 'ft'],
  },
};
const MADE_UP_WORDS = 5_000;
const TOPIC_WORDS = 150;
/** Share of content words drawn from the document's topic rather than the whole language. */
const TOPIC_SHARE = 0.6;

/** Cumulative Zipf weights (exponent 1) of n ranks, for sampling by binary search. */
function zipf(n: number): Float64Array {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let r = 0; r < n; r += 1) cdf[r] = sum += 1 / (r + 1);
  for (let r = 0; r < n; r += 1) cdf[r]! /= sum;
  return cdf;
}

interface Vocabulary {
  words: string[];
  cdf: Float64Array;
}

/** What one document is about: its language and the words most of its sentences use. */
export interface Topic {
  lang: Lang;
  words: string[];
}

export class Corpus {
  private readonly random: () => number;
  private readonly vocabularies: Record<Lang, Vocabulary>;

  constructor(seed = 20_241_122) {
    this.random = mulberry32(seed);
    const build = (lang: Lang): Vocabulary => {
      const { onsets, nuclei, codas } = LETTERS[lang];
      const made = new Set<string>();
      while (made.size < MADE_UP_WORDS) {
        const syllables = 2 + Math.floor(this.random() * 3);
        let word = '';
        for (let i = 0; i < syllables; i += 1) word += this.pick(onsets) + this.pick(nuclei);
        word += this.pick(codas);
        made.add(lang === 'de' ? word[0]!.toUpperCase() + word.slice(1) : word);
      }
      const b = BANKS[lang];
      // The domain words take the top ranks; the made-up words are the long tail.
      const words = [...b.nouns, ...b.adjectives, ...b.verbs, ...[...made].filter((w) => !b.nouns.includes(w))];
      return { words, cdf: zipf(words.length) };
    };
    this.vocabularies = { nl: build('nl'), en: build('en'), fr: build('fr'), de: build('de') };
  }

  private pick<T>(list: T[]): T {
    return list[Math.floor(this.random() * list.length)]!;
  }

  private draw(vocabulary: Vocabulary): string {
    const u = this.random();
    let lo = 0;
    let hi = vocabulary.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (vocabulary.cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return vocabulary.words[lo]!;
  }

  language(): Lang {
    return this.pick(LANGS);
  }

  /** A new topic: words of the language drawn once, so common and rare ones alike. */
  topic(lang: Lang = this.language()): Topic {
    const words = new Set<string>();
    while (words.size < TOPIC_WORDS) words.add(this.random() < 0.5 ? this.draw(this.vocabularies[lang]) : this.pick(this.vocabularies[lang].words));
    return { lang, words: [...words] };
  }

  private word(topic: Topic): string {
    return this.random() < TOPIC_SHARE ? this.pick(topic.words) : this.draw(this.vocabularies[topic.lang]);
  }

  sentence(topic: Topic): string {
    const b = BANKS[topic.lang];
    const parts = [this.pick(b.articles), this.word(topic), this.word(topic), this.word(topic), this.pick(b.articles), this.word(topic), this.pick(b.links), this.word(topic)];
    if (this.random() < 0.4) parts.push(this.pick(b.links), String(1 + Math.floor(this.random() * 9_999)), this.word(topic));
    const text = parts.join(' ');
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  }

  /** About `length` characters on `topic` in paragraphs of 3–6 sentences (cut at a sentence end). */
  text(length: number, topic: Topic = this.topic()): string {
    const paragraphs: string[] = [];
    let size = 0;
    while (size < length) {
      const count = 3 + Math.floor(this.random() * 4);
      const paragraph = Array.from({ length: count }, () => this.sentence(topic)).join(' ');
      paragraphs.push(paragraph);
      size += paragraph.length + 2;
    }
    return paragraphs.join('\n\n');
  }

  /** Exactly `length` characters. */
  exact(length: number, topic: Topic = this.topic()): string {
    return this.text(length + 400, topic).slice(0, length);
  }

  /** A question about a topic, as a user would type it: 3–5 of its content words. */
  query(topic: Topic): string {
    return Array.from({ length: 3 + Math.floor(this.random() * 3) }, () => this.word(topic)).join(' ');
  }

  /** A fact about an end-user, as a chat app would submit it. */
  fact(i: number): string {
    const lang = LANGS[i % LANGS.length]!;
    const facts: Record<Lang, string> = {
      nl: `Mijn ${this.pick(BANKS.nl.nouns)} is verzekerd onder polisnummer ${100_000 + i}.`,
      en: `My ${this.pick(BANKS.en.nouns)} is insured under policy number ${100_000 + i}.`,
      fr: `Mon ${this.pick(BANKS.fr.nouns)} est assuré sous le numéro de police ${100_000 + i}.`,
      de: `Mein ${this.pick(BANKS.de.nouns)} ist unter der Policennummer ${100_000 + i} versichert.`,
    };
    return facts[lang];
  }
}
