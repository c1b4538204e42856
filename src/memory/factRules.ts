import { isBlank } from '../blank.js';
import { guessLanguage } from '../firewall/language.js';
import type { Language } from '../firewall/types.js';

// The rule-based fact extractor: the service default when a workspace has no extraction model.
// It cuts the text into sentences (nl/en/fr/de) and keeps the statements worth remembering:
// for an end-user, those about the user (first person, or naming the user); for shared
// knowledge, every statement. Questions, greetings, filler and requests to the assistant go.
// It keeps the user's own words: a rule cannot rephrase, and a sentence is a fact already.

export const TS_CONFIG_OF: Record<Language, string> = { nl: 'dutch', en: 'english', fr: 'french', de: 'german' };

export interface RuleInput {
  content: string;
  /** With an end-user, only statements about the user are kept. */
  userRef: string | null;
  language: Language;
}

/**
 * The language of a submission: detected on the whole text (sentences alone are often too short
 * to tell), else the workspace's firewall language, else English.
 */
export function submissionLanguage(content: string, workspaceLanguage: Language | 'auto'): Language {
  return guessLanguage(content, workspaceLanguage === 'auto' ? 'en' : workspaceLanguage).language;
}

/** The text-search configuration of a fact: its own language when clear, else the submission's. */
export function tsConfigFor(text: string, fallback: Language): string {
  const guess = guessLanguage(text, fallback);
  return TS_CONFIG_OF[guess.accuracy >= 0.5 ? guess.language : fallback];
}

// ---------------------------------------------------------------------------------------------
// Sentences
// ---------------------------------------------------------------------------------------------

// Abbreviations after which ICU's sentence break is wrong for our purpose ("Dr. Jansen is my GP").
const ABBREVIATION_END =
  /(?:^|[\s(])(?:dr|drs|mr|mrs|ms|mw|dhr|st|prof|ir|ing|mme|mlle|hr|fr|nr|no|tel|ca|vs|etc|e\.g|i\.e|bijv|bv|z\.b|u\.a|d\.h|[a-z])\.\s*$/i;
const BULLET = /^\s*(?:[-*•·–]|\d{1,3}[.)])\s+/;

export function splitSentences(text: string, language: Language): string[] {
  const segmenter = new Intl.Segmenter(language, { granularity: 'sentence' });
  const sentences: string[] = [];
  // Lines first: a list or a chat transcript has one statement per line, often without a stop.
  for (const line of text.split(/\r?\n|\u2028|\u2029/)) {
    let pending = '';
    // Whether `pending` ends with an abbreviation. Each new piece is tested alone: an
    // abbreviation has no space in it, so it cannot straddle the joining space, and testing the
    // whole sentence so far after every piece made a line of "a. a. a. …" quadratic.
    let abbreviated = false;
    // ICU does not break before a lower-case start ("… by email. cust-42 has …"); a stop
    // followed by a space does, unless it ends an abbreviation.
    const pieces = [...segmenter.segment(line)].flatMap(({ segment }) => segment.split(/(?<=[.!?])\s+/u));
    for (const piece of pieces) {
      pending = pending ? `${pending} ${piece}` : piece;
      // A blank piece adds only spaces, which the pattern's `\s*$` allows after the stop.
      if (piece.trim() !== '') abbreviated = ABBREVIATION_END.test(piece);
      if (abbreviated) continue;
      sentences.push(pending);
      pending = '';
    }
    if (pending) sentences.push(pending);
  }
  return sentences.map((s) => s.replace(BULLET, '').replace(/\s+/g, ' ').trim()).filter((s) => !isBlank(s));
}

// ---------------------------------------------------------------------------------------------
// What to drop or strip
// ---------------------------------------------------------------------------------------------

const GREETING =
  "(?:hi|hello|hey|hiya|howdy|good (?:morning|afternoon|evening|day)|dear|thanks|thank you(?: (?:so|very) much)?|many thanks|cheers|bye|goodbye|" +
  'hoi|hallo|hai|goedemorgen|goedemiddag|goedenavond|goeiemorgen|goeiedag|dag|beste|bedankt|dankjewel|dank ?je(?: wel)?|dank u(?: wel)?|doei|tot ziens|' +
  'bonjour|bonsoir|salut|coucou|merci(?: beaucoup| bien)?|au revoir|cher|ch[èe]re|' +
  'guten (?:morgen|tag|abend)|servus|moin|gr[üu](?:ß|ss) gott|danke(?: sch[öo]n| sehr)?|vielen dank|tsch[üu]ss|auf wiedersehen|liebe|lieber)';
const GREETING_AT_START = new RegExp(`^${GREETING}\\b`, 'iu');
// Whom a greeting addresses: everyone, or a name or two ("Hi Anna Jansen, …"). Names are told by
// their capital, so this one is case-sensitive ("Lieber trinke ich Tee" greets nobody).
const ADDRESSEE =
  /^(?:\s+(?:[Tt]here|[Aa]ll|[Ee]veryone|[Ff]olks|[Tt]eam|[Aa]llemaal|[Ii]edereen|[Jj]ullie|à tous|tout le monde|[Zz]usammen|[Aa]lle|[Aa]llerseits))?(?:\s+\p{Lu}\p{Ll}[\p{L}'-]*){0,2}/u;
const FIRST_WORD_IS_FIRST_PERSON = /^\s+(?:i|i'm|my|ik|mijn|m'n|je|j'|moi|ich|mein|meine|we|wij|nous|wir)\b/iu;

/** The sentence without a greeting at its start; '' when it was only a greeting. */
function stripGreeting(s: string): string {
  const greeting = GREETING_AT_START.exec(s);
  if (!greeting) return s;
  let rest = s.slice(greeting[0].length);
  // "Hallo ik ben Sofie": no comma, but the statement clearly starts here.
  if (FIRST_WORD_IS_FIRST_PERSON.test(rest)) return rest.trimStart();
  rest = rest.slice(ADDRESSEE.exec(rest)![0].length);
  const punctuation = /^\s*[,!.:;]+\s*/u.exec(rest);
  if (punctuation) return rest.slice(punctuation[0].length);
  if (rest.trim() === '') return '';
  // "Thanks to my job I travel a lot": not a greeting after all.
  return s;
}

// "Please note that …", "FYI …": what follows is the statement.
const LEADING_PREAMBLE = new RegExp(
  '^(?:' +
    [
      "(?:please )?(?:note|remember|keep in mind|be aware)(?: that)?",
      'fyi|btw|by the way|just so you know|for your information|for the record',
      '(?:onthoud|noteer|let op)(?: even| alsjeblieft| aub)?(?: dat)?|ter info|trouwens|overigens',
      "(?:retiens|note|rappelle-toi|n'oublie pas)(?: que| qu')?|pour info|pour information|au fait|d'ailleurs",
      "merk dir(?:,)?(?: dass)?|(?:bitte )?beachte(?:,)?(?: dass)?|zur info|[üu]brigens|nur zur info",
    ].join('|') +
    ')\\b[,:]?\\s*',
  'iu',
);

// Whole sentences that carry nothing (compared after normalisation).
const FILLER = new Set(
  [
    'ok', 'okay', 'oke', 'k', 'sure', 'yes', 'yeah', 'yep', 'no', 'nope', 'thanks', 'thank you', 'lol', 'haha', 'hmm', 'great',
    'cool', 'nice', 'perfect', 'fine', 'good', 'i see', 'i agree', 'i understand', 'i don t know', 'i do not know', 'i m not sure',
    'i am not sure', 'i think so', 'i guess', 'i guess so', 'i hope so', 'no problem', 'you re welcome', 'got it', 'i got it',
    'that s all', 'ja', 'nee', 'prima', 'goed', 'top', 'klopt', 'precies', 'ik snap het', 'ik begrijp het', 'ik weet het niet',
    'weet ik niet', 'geen idee', 'dat is alles', 'ik denk het', 'oui', 'non', 'd accord', 'je vois', 'je comprends',
    'je ne sais pas', 'bien sur', 'parfait', 'c est tout', 'je pense', 'nein', 'genau', 'gut', 'alles klar', 'ich verstehe',
    'ich weiss nicht', 'keine ahnung', 'stimmt', 'das ist alles', 'ich denke schon',
  ],
);

// Statements about the conversation, not about the user ("I have a question").
const META =
  /^(?:i (?:have|got) a (?:question|request)|i (?:was|am) wondering|i(?: would|'d) like to (?:ask|know)|i want to (?:ask|know)|i need (?:some )?help|ik heb een vraag|ik vroeg me af|ik wil(?: graag)? (?:weten|vragen)|ik zou (?:graag )?willen weten|ik heb hulp nodig|j'ai une question|je me demandais|je voudrais (?:savoir|demander)|j'ai besoin d'aide|ich habe eine frage|ich frage mich|ich m[öo]chte (?:wissen|fragen)|ich w[üu]rde gerne wissen|ich brauche hilfe)\b/iu;

// Requests to the assistant: a command, or "can you …". Their first person ("tell me") is not a fact.
const REQUEST =
  /^(?:please|pls|can you|could you|would you|will you|tell me|show me|give me|help me|let me know|send me|call me|remind me|find|book|schedule|explain|write|kun je|kunt u|kan je|wil je|wilt u|zou je|zou u|vertel|laat me|geef me|help me|stuur me|bel me|herinner me|zoek|leg uit|schrijf|peux-tu|pouvez-vous|pourrais-tu|pourriez-vous|dis-moi|donne-moi|montre-moi|aide-moi|envoie-moi|rappelle-moi|explique|[ée]cris|kannst du|k[öo]nnen sie|k[öo]nntest du|k[öo]nnten sie|sag mir|gib mir|zeig mir|hilf mir|schick mir|erinnere mich|erkl[äa]re|schreib|bitte)\b/iu;

// Questions without a question mark: an auxiliary before "you" ("do you …", "heb je …"), or a
// question word before a verb ("what is …"). A question word before "I" is a statement ("when I
// was young, …").
const INVERTED_QUESTION =
  /^(?:(?:do|does|did|can|could|would|will|are|is|have|has|should|may)\s+(?:you|u|we)\b|(?:heb|hebt|ben|kun|kan|wil|mag|zou|moet|ga)\s+(?:je|jij|u)\b|(?:hebben|kunnen|zijn|willen|mogen)\s+(?:jullie|u)\b|est-ce qu|(?:as|es|peux|veux|sais|vas)-tu\b|(?:avez|êtes|pouvez|voulez|savez|allez)-vous\b|(?:hast|bist|kannst|willst|weißt|weisst|darfst|sollst)\s+du\b|(?:haben|sind|können|wollen|wissen)\s+sie\b)/iu;
const QUESTION_WORD_THEN_VERB =
  /^(?:what|what's|who|who's|where|where's|when|why|how|how's|which|wat|wie|waar|wanneer|waarom|hoe|welke|welk|que|qu'|quoi|qui|o[ùu]|quand|pourquoi|comment|quel|quelle|quels|quelles|was|wer|wo|wann|warum|wieso|weshalb|welche|welcher|welches)\s+(?:is|are|was|were|do|does|did|can|could|would|will|should|has|have|zijn|is|was|heb|hebt|heeft|kan|kun|kunt|moet|wil|doe|doet|est|sont|fait|faut|peut|ist|sind|war|hat|haben|kann|muss|soll|wird|gibt)\b/iu;

// First-person words, per language. Dutch "je" is "you": French "je" counts only in French text.
const FIRST_PERSON: Record<Language, Set<string>> = {
  en: new Set(['i', 'me', 'my', 'mine', 'myself', 'we', 'us', 'our', 'ours', 'ourselves']),
  nl: new Set(['ik', 'me', 'mij', 'mijn', 'm', 'mezelf', 'mijzelf', 'wij', 'we', 'ons', 'onze']),
  fr: new Set(['je', 'j', 'moi', 'me', 'm', 'mon', 'ma', 'mes', 'nous', 'notre', 'nos']),
  de: new Set(['ich', 'mich', 'mir', 'mein', 'meine', 'meinen', 'meinem', 'meiner', 'meines', 'wir', 'uns', 'unser', 'unsere', 'unseren', 'unserem', 'unserer']),
};

// Third-person references to the end-user that apps write into facts ("The customer prefers …").
const ABOUT_THE_USER =
  /^(?:the )?(?:user|customer|client|end-user)\b|^de (?:gebruiker|klant|eindgebruiker)\b|^(?:l'utilisateur|l'utilisatrice|le client|la cliente)\b|^(?:der|die) (?:nutzer|nutzerin|benutzer|benutzerin|kunde|kundin)\b/iu;

// How users introduce themselves: the name, once known, marks later sentences as about them.
const INTRODUCTION =
  /(?:my name is|call me|i am called|mijn naam is|ik heet|noem me|je m'appelle|mon nom est|on m'appelle|ich hei(?:ß|ss)e|mein name ist|nenn mich)\s+([\p{L}'-]{2,40})/giu;

/** The names the user introduced themself by ("My name is Bram"): a capital tells a name. */
function introducedNames(content: string): string[] {
  // Without repeats: each name is looked for in every sentence.
  return [...new Set([...content.matchAll(INTRODUCTION)].map((m) => m[1]!).filter((name) => /^\p{Lu}/u.test(name)))];
}

const words = (text: string): string[] =>
  text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

function stripLead(sentence: string): string {
  let s = sentence;
  for (let i = 0; i < 4; i++) {
    const next = stripGreeting(s).replace(LEADING_PREAMBLE, '');
    if (next === s) break;
    s = next;
  }
  if (s !== sentence && s !== '') s = s[0]!.toUpperCase() + s.slice(1);
  return s.trim();
}

export function isQuestion(sentence: string): boolean {
  return /[?？¿]\s*["'»”)]*$/u.test(sentence) || INVERTED_QUESTION.test(sentence) || QUESTION_WORD_THEN_VERB.test(sentence);
}

function isFiller(sentence: string): boolean {
  const w = words(sentence);
  return w.length < 2 || FILLER.has(w.join(' '));
}

// Words that are first person in one language and something else in another: Dutch "je" is
// "you", "mes" a knife, "ma" a mum; English "mon" a Monday. They count only in the submission's
// language or the sentence's own. Every other first-person word counts in any of the four, since
// a Dutch message may hold an English sentence and short sentences are hard to tell apart.
const AMBIGUOUS = new Set(['je', 'mes', 'ma', 'mon', 'nos', 'm', 'us']);
const ANY_FIRST_PERSON = new Set(Object.values(FIRST_PERSON).flatMap((set) => [...set].filter((w) => !AMBIGUOUS.has(w))));

function hasFirstPerson(sentence: string, language: Language): boolean {
  const guessed = guessLanguage(sentence, language).language;
  return words(sentence).some((w) => ANY_FIRST_PERSON.has(w) || FIRST_PERSON[language].has(w) || FIRST_PERSON[guessed].has(w));
}

function mentionsAny(sentence: string, names: string[]): boolean {
  const lower = sentence.toLowerCase();
  return names.some((name) => {
    const at = lower.indexOf(name.toLowerCase());
    if (at === -1) return false;
    const before = lower[at - 1];
    const after = lower[at + name.length];
    const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);
    return !isWordChar(before) && !isWordChar(after);
  });
}

/** The statements of `content` worth keeping as facts, in order, without repeats. */
export function extractByRules(input: RuleInput): string[] {
  const personal = input.userRef !== null;
  const names = personal ? [input.userRef!, ...introducedNames(input.content)] : [];
  const kept: string[] = [];
  const seen = new Set<string>();
  for (const raw of splitSentences(input.content, input.language)) {
    const sentence = stripLead(raw);
    if (sentence === '' || isQuestion(sentence) || isFiller(sentence)) continue;
    if (REQUEST.test(sentence) || META.test(sentence)) continue;
    if (personal && !hasFirstPerson(sentence, input.language) && !ABOUT_THE_USER.test(sentence) && !mentionsAny(sentence, names)) continue;
    const key = words(sentence).join(' ');
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(sentence);
  }
  return kept;
}

// A statement that withdraws an earlier one: "I no longer live in Leiden", "I don't smoke
// anymore", "Ik woon niet meer in Leiden", "Ik heb geen auto meer", "Ich habe keinen Hund mehr",
// "Je n'habite plus à Leiden". What it withdraws is its first clause with the negation taken out
// ("I live in Leiden"); a fact is withdrawn when its words begin with those words, contractions
// read out ("I'm" is "I am", "j'habite" is "je habite"): "I live in Leiden, in the Netherlands" is,
// "My parents live in Leiden", "I am allergic to dogs" and "I lived in Leiden for ten years" are
// not (QA: matched by their stems alone, a withdrawal deleted every fact holding its one noun).
// "No longer than", "niet meer dan", "nicht mehr als" compare, they withdraw nothing. Short
// statements only: a negation deep in a paragraph withdraws no one fact.
const WITHDRAWN_MAX_CHARS = 300;
const NO_LONGER = /\b(?:no longer|niet meer|niet langer|nicht mehr|nicht länger)\s+(?!than\b|dan\b|als\b)/iu;
const NO_LONGER_AFTER = /\s+(?:niet meer|nicht mehr|niet langer|nicht länger)\b(?!\s+(?:dan|als)\b)/iu;
const ANYMORE = /\s+any ?(?:more|longer)\b/iu;
const NOT_BEFORE_ANYMORE = /\b(?:do not|don['’]t|does not|doesn['’]t|not)\s+/iu;
const NONE_MORE_NL = /\bgeen\s+(\p{L}+)\s+meer\b/iu;
const NONE_MORE_DE = /\bkein(e|en|em|er|es)?\s+(\p{L}+)\s+mehr\b/iu;
const NE_PLUS = /\bn(?:e\s+|['’])(y\s+)?(\p{L}+)\s+plus\b/iu;
const CLAUSE_END = /[,;:(]|\s[-–—]\s/u;

/** The statement `sentence` withdraws (its first clause, without the negation), or undefined when it withdraws none. */
export function withdrawnStatement(sentence: string): string | undefined {
  if (sentence.length > WITHDRAWN_MAX_CHARS) return undefined;
  let positive: string | undefined;
  if (NO_LONGER.test(sentence)) positive = sentence.replace(NO_LONGER, '');
  else if (NO_LONGER_AFTER.test(sentence)) positive = sentence.replace(NO_LONGER_AFTER, '');
  else if (ANYMORE.test(sentence) && NOT_BEFORE_ANYMORE.test(sentence)) positive = sentence.replace(ANYMORE, '').replace(NOT_BEFORE_ANYMORE, '');
  else if (NONE_MORE_NL.test(sentence)) positive = sentence.replace(NONE_MORE_NL, 'een $1');
  else if (NONE_MORE_DE.test(sentence)) positive = sentence.replace(NONE_MORE_DE, 'ein$1 $2');
  else if (NE_PLUS.test(sentence)) positive = sentence.replace(NE_PLUS, '$1$2');
  if (positive === undefined) return undefined;
  const clause = CLAUSE_END.exec(positive);
  return (clause ? positive.slice(0, clause.index) : positive).replace(/[.!]+\s*$/u, '').trim();
}

// Contractions read out, so that "I'm no longer a student" withdraws "I am a student".
const CONTRACTIONS: Array<[RegExp, string]> = [
  [/\b(i)['’]m\b/giu, '$1 am'],
  [/n['’]t\b/giu, ' not'],
  [/['’]re\b/giu, ' are'],
  [/['’]ve\b/giu, ' have'],
  [/\b([jlmtsdnc])['’](?=\p{L})/giu, '$1e '],
];

/** A statement's words as a fact is compared by: lower case, accents and contractions read out. */
function statementWords(text: string): string[] {
  let s = text;
  for (const [re, to] of CONTRACTIONS) s = s.replace(re, to);
  return words(s);
}

/** Whether `fact` is what the withdrawn statement `withdrawn` (withdrawnStatement's) said. */
export function withdraws(withdrawn: string, fact: string): boolean {
  const said = statementWords(withdrawn);
  if (said.length < 2 || withdrawnStatement(fact) !== undefined) return false;
  const held = statementWords(fact);
  return said.length <= held.length && said.every((word, i) => held[i] === word);
}
