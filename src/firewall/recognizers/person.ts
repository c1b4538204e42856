// Person names. Four kinds of evidence, strongest first:
//  1. a cue phrase that introduces a name ("mijn naam is", "ich heiße", "je m'appelle",
//     "my name is", "Naam:", "Name:") or a title (Dhr./Mevr./Herr/Frau/M./Mme/Mr/Ms/Dr …): the
//     following capitalised tokens are the name, whether or not the gazetteer knows them;
//  2. a weaker cue (a greeting "Hoi"/"Dear"/"Liebe", a sign-off "Groeten,"/"Regards,", "ik ben",
//     "I'm", "je suis", "ich bin", "hier is", "c'est") followed by a first name from the gazetteer,
//     or after a self-introduction a surname from it ("Ik ben Jansen"), or after a sign-off or a
//     contact cue initials and a surname ("Best, A. Smith", "call J. de Vries");
//  3. a gazetteer first name anywhere, when followed by a capitalised surname ("Pieter Jansen");
//     a first name that is also a common word, town or brand ("Mark", "May", "Paris") needs a
//     surname the gazetteer knows ("Will Smith"). A lone first name counts mid-sentence, or at the
//     start of a sentence when a lower-case word follows ("Sanne belt morgen"), unless it is such
//     a common word; without this rule recall on names drops from 99% to 85% on the eval set;
//  4. a capitalised token followed by a surname the gazetteer knows ("Hanneke Kramer") or knows by
//     its form ("Dragan Petrović"; a trade or doorbell noun before it stays out: "Klingel Möller"),
//     a known surname after lower-case particles mid-sentence ("volgens de Boer"), or a family's
//     name ("la famille Le Goff", "the Smith family");
//  5. in text written like chat, lower-case names: a known first name and surname ("thijs visser"),
//     or a lone first name after a preposition, relation or greeting ("voor femke", "hi tom");
//     in any text, a lower-case first name after a self-introduction or a sign-off ("i'm emma",
//     "groetjes, sanne") when it is no word of the cue's language (see INTRODUCED_LOWER).
// Brands and places named after people ("Albert Heijn", "Hugo Boss") are skipped without a cue.
// The gazetteer is generated from @faker-js/faker's locale data (see ../gazetteer/build.mjs).
// Titles stay outside the span: "Dhr. [PERSON_1]" keeps the form of address for the model.
//
// Cost: the cue regexes and the token regex are not run over the whole text; the pre-scan
// (../scan.ts) lists the word starts whose first characters (up to four) can begin a cue — from
// each cue regex's own prefix set, see ../regex-prefix.ts — and the capitalised word starts, and
// each regex is tried, sticky, only there, with the same matches as a global scan.
import { isKnownFirstName, isKnownFirstNameLower, isKnownLastName, isKnownLastNameLower } from '../gazetteer/index.js';
import { firstChars, foldCode, wordPrefixFilter, type FirstChars } from '../regex-prefix.js';
import { Matcher, cuePositions, isLetterCode, registerCue, scanOf, type TextScan } from '../scan.js';
import { isFunctionWord } from '../language-words.js';
import { isNonNameWord } from '../words.js';
import type { Detection, Language, Recognizer } from '../types.js';

// A capitalised name token: Jansen, McDonald, O'Brien, Müller-Lüdenscheidt, Anne-Sophie, DUPONT.
const TOKEN_SRC =
  "(?:\\p{Lu}['’]\\p{Lu}\\p{Ll}+|\\p{Lu}\\p{Ll}+(?:\\p{Lu}\\p{Ll}+)?|\\p{Lu}{2,})(?:-(?:\\p{Lu}\\p{Ll}+|\\p{Lu}{2,}))*";
const TOKEN_Y = new RegExp(`${TOKEN_SRC}(?![\\p{L}\\p{N}])`, 'uy');
const TOKEN_G = new RegExp(`(?<![\\p{L}\\p{N}'’-])${TOKEN_SRC}(?![\\p{L}\\p{N}])`, 'gu');
// TOKEN_G at the pre-scan's capitalised word starts, which already satisfy its lookbehind.
const TOKEN_AT_CAP = TOKEN_Y;
// Name particles between first name and surname (lower case), or leading a surname (capitalised).
// Flemish writes "van den", "van der", "van de" as one word: "Griet Vanden Bossche", "Kristof
// Vander Elst" (only these; "Verdonck" is a surname, not a particle and a word).
const PARTICLE_Y =
  /(?:vanden|vander|vande|van der|van den|van de|van ['’]t|von der|von und zu|de la|de los|op den|op de|op ['’]t|in ['’]t|in de|in den|uit de|uit den|van|von|vom|zu|zur|de|der|den|ter|ten|te|du|des|le|la|di|da|del|dos|das|bin|al|el)[ \u00a0]/uy;
// Irish particles: "Siobhán Ní Bhriain", "Seán Ó Súilleabháin", "Aoife Mac Giolla", "Máire Nic Gearailt".
// "Van 't" as Dutch capitalises it after a title ("mevrouw Van 't Hof"): without it the title read
// "Van" alone, found no surname after it, and the name went out in clear.
const CAP_PARTICLE_Y =
  /(?:Vanden|Vander|Vande|Van der|Van den|Van de|Van ['’]t|Von der|De la|Van|Von|De|Le|La|Du|Di|Da|Del|Ter|Ten|Mac|Mhic|Mc|Nic|Ní|Uí|Ua|Ó|VAN DER|VAN DEN|VAN DE|VON DER|DE LA|VAN|VON|DE|DOS|DA|DI|DEL|DU|LE|TER|TEN)[ \u00a0]/uy;
// "Ní", "Nic", "Uí", "Ó", "Mhic" before a capitalised word are the Irish surname's particles and
// nothing else in the four languages; "Mac"/"Mc" alone also lead products ("Mac Pro"), so they
// count only after a known first name (CAP_PARTICLE_Y).
const IRISH_PARTICLE_Y = /[ \u00a0](?:Mhic|Nic|Ní|Uí|Ó)[ \u00a0](?=\p{Lu})/uy;
const APOS_PARTICLE_Y = /[dD]['’](?=\p{Lu})/uy;
const INITIALS_Y = /(?:\p{Lu}\.[ \u00a0]?){1,4}(?=[ \u00a0]?(?:\p{Lu}|van |de |von |le |du |ter |ten ))/uy;
const SPACE_Y = /[ \u00a0]{1,2}/y;

// First names that are also common words, places or brands: never enough on their own. "Lui" is
// the French pronoun ("pour lui", "chez lui" were masked in chat-style text); "Roma" is Rome in
// Italian ("Roma is beautiful in spring" was masked). "Bruto" is Dutch gross ("Bruto loon"), "Oma"
// a grandmother ("Kannst du Oma anrufen?"), "Tor" a gate or a goal ("Frankfurter Tor"), "El" the
// Spanish article ("El Museo del Prado"): each was masked alone.
const AMBIGUOUS = new Set(
  `Will May June April August Mark Hope Joy Grace Faith Rose Ruby Amber Crystal Dawn Summer Autumn Bill Pat Sue Art
  Baby Name King Pink Sky Ivy Holly Iris Lily Daisy Jade Angel Precious Chase Hunter Rocky Royal Major Miles Price Buck
  Chance Clay Dale Drew Ford Gene Guy Lane Reed Rod Sage Wade Ward Wolf Glen Colt Dock Earl Fern Florence Forest
  Jordan Lincoln Mac Marina Max Mercedes Nova Opal Pearl Paris Sierra Stone Sunny Violet Jasmine Heather Brook River
  Dakota Asia Kenya Georgia Virginia Carolina Sydney Austin Dallas Houston Chelsea Madison Brooklyn Orlando Savannah
  Alexa Luna Can Bon Fine Ange Aube Pie Till Ernst Linde Rosa Bo Jet Lot Job Roos Mees Bent Ben Kick Jazz Lux
  Nine Eden Storm Sterling Prince Baron Bell Frank Christian Patience Prudence Constance Clement Justice Harmony
  Trinity Destiny Olive Hazel Ginger Ebony Ivory Green Brown Rex Jay Robin Raven Dusty Rusty Sandy Misty Buddy Noel
  Easter Marine Blanche Claire Clair Beat Mio Otto Peer Line Urs Falk Sky Tyler Taylor Carter Parker
  Cooper Mason Porter Walker Turner Tanner Miller Marshall Harley Piper Ryder Blaze Ace Gay Dee Era Ima Ola Oral
  Toy Lue Van Ara Bella Berry Golden Pleasant Else Ray Kay Amor Santa Lean Judge Aura Victoria Lorraine Normandie Carmen Roman
  Milan Vienna Adelaide Augusta Lourdes Orange Abbey Cam Viva Kai Don Alba Dora Nike Gust Puck Ties Rune Zion Cruz
  Luz Vitale Primo Santo Natale Fortunato Sole Luce Gloria Dolores Pilar Angelo Leone Amor Felice Nieves Clio Zoe Megane
  Bas Dean Page Rich Hardy Noble Tom Mercy Rain Geneva Siena Verona Odessa Milano London Santiago
  Joke Harm Ton Rien Dick Ferry Riet Elke Toon Leen Lies Lode Mien Reiner Rosette Wolfram Églantine Koos Jena
  Lui Roma Florida Gentile
  Bruto Oma Tor El Lilie`
    .split(/\s+/)
    .filter(Boolean),
);

// A kinship word alone before a name, as family lists write them ("Sohn Jan *02.11.1981, Tochter
// Greta *17.06.1984"): a lone first name there was refused for the number after it. Not English
// "son", which is French for "his" ("son Instagram"): it vouches only for a known first name
// (KINSHIP_BEFORE).
const KINSHIP = 'sohn|tochter|zoon|dochter|daughter|fils|fille';
// A spouse's word vouches so too: "Ehefrau Claudia (* 3. Mai 1962)", "épouse Nathalie", in the
// family lists of a policy; a bracket after the name refused it before.
const KINSHIP_BEFORE = new Set([...KINSHIP.split('|'), 'son', 'ehefrau', 'ehemann', 'gattin', 'gatte', 'épouse', 'époux', 'wife', 'husband']);

// Strong cues: whatever capitalised words follow are a name.
const RELATION =
  "mijn (?:collega|vriend|vriendin|man|vrouw|zoon|dochter|broer|zus|moeder|vader|buurman|buurvrouw|partner)|meine[mnr]? (?:kollegin|kollege|freundin|freund|mann|frau|sohn|tochter|bruder|schwester|mutter|vater|partner(?:in)?)|mon (?:collègue|ami|mari|fils|frère|père|compagnon)|ma (?:collègue|amie|femme|fille|sœur|soeur|mère|compagne)|my (?:colleague|friend|husband|wife|son|daughter|brother|sister|mother|father|manager|boss|partner)";
const STRONG_CUE = new RegExp(
  "(?<![\\p{L}])(?:mijn naam is|ik heet|me llamo|mi nombre es|mi chiamo|il mio nome (?:è|e['’])|nazywam si[ęe]|mam na imi[ęe]|(?:voor|achter)?naam\\s*:|namens|my name is|(?:first |last |full |sur)?name\\s*:|je m['’]appelle|je me nomme|mon nom est|moi c['’]est|(?:pr[ée])?nom\\s*:|ich hei(?:ß|ss)e|mein name ist|(?:vor|nach|familien)?name\\s*:|hier spricht|contact(?:persoon|person)?\\s*:|ansprechpartner(?:in)?\\s*:|patient(?:e|in)?\\s*:|klant\\s*:|kunde\\s*:|client\\s*:|customer\\s*:|aanvrager\\s*:|antragsteller(?:in)?\\s*:|demandeur\\s*:|" +
    // Insurance roles as labels ("Verzekeringnemer: …", "Policyholder: …", "Assurée : …").
    "(?:verzekeringnemer|polishouder|verzekerde|begunstigde|(?:schade)?behandelaar|policy ?holder|insured|beneficiary|claimant|versicherungsnehmer(?:in)?|versicherte[rn]?|begünstigte[rn]?|sachbearbeiter(?:in)?|preneur d['’]assurance|assurée?|souscript(?:eur|rice)|bénéficiaire|gestionnaire)\\s*:|" +
    "t\\.\\s?n\\.\\s?v\\.?|t\\.\\s?a\\.\\s?v\\.?|z\\.\\s?hd\\.?|zu händen(?: von)?|attn\\.?:?|attention(?: of)?:?|c/o|à l['’]attention de|au nom de|im auftrag von|on behalf of|" +
    "kontoinhaber(?:in)?:?|account holder:?|rekeninghouder:?|titulaire(?: du compte| de la carte)?\\s*:?|" +
    // Payment forms and checkouts: the name on a card.
    "name on (?:the )?card\\s*:?|card ?holder(?:['’]s name)?\\s*:?|karteninhaber(?:in)?:?|name auf der karte\\s*:?|kaarthouder:?|naam op (?:de )?kaart\\s*:?|nom sur la carte\\s*:?|" +
    // "la famille Le Goff", "de familie Bakker", "Familie Möller": the family's name follows.
    "famille|familie|famiglia|familia|" +
    RELATION +
    "|" +
    KINSHIP +
    ")[ \\u00a0\\t]*",
  'giu',
);
// A sign-off on its own line: the next line is the signature. The spaces around the punctuation are
// two runs only when the punctuation is there: "[ \t]*[,!.]?[ \t]*" backtracked quadratically on a
// long run of spaces after "best" (40,000 spaces took 2 s).
// The closings of chat and informal mail count too ("Groetjes,", "Thanks so much,", "Bonne journée,",
// "Liebe Grüße"): the line under them is as surely a signature. So do the thanks that close as many
// messages ("Thanks in advance,", "Dank je wel,", "Vielen Dank!", "Merci d'avance,", "Merci !", and
// the Spanish, Italian and Polish closings): a first name under them was sent in clear.
const SIGNOFF_LINE =
  /(?<![\p{L}])(?:(?:met )?vriendelijke groet(?:en)?|(?:hartelijke |veel |lieve )?groet(?:en|jes)?|liefs|mvg|(?:kind |best |warm )?regards|best wishes|all the best|take care|best|cheers|(?:many )?thanks(?: (?:so|very) much| a lot| again| in advance)?|thank you(?: (?:so|very) much| in advance)?|dank (?:je|u) ?wel|(?:alvast )?bedankt|vielen dank(?: im voraus)?|danke(?: schön| sehr)?|merci(?: d['’]avance| beaucoup| bien)?|grazie(?: mille| in anticipo)?|(?:cordiali |distinti )?saluti|(?:un )?saludos?|(?:muchas )?gracias(?: de antemano| por adelantado)?|atentamente|pozdrawiam|dzi[ęe]kuj[ęe](?: bardzo)?|dzi[ęe]ki|(?:yours )?sincerely|(?:bien )?cordialement|bien à vous|salutations(?: distinguées)?|bisous|bises|amitiés|(?:bonne|belle) (?:journée|soirée)|mit freundlichen grüßen|(?:viele|beste|liebe|herzliche) grüße|lg|mfg|vg|gruß|grüße|(?<!\d[ \u00a0]?)gr(?=[ \t]*,))[ \t]*(?:[,!.][ \t]*)?\n[ \t]*/giu;

// Weak cues: a following name must be in the gazetteer (ambiguous names are then accepted).
const WEAK_CUE =
  /(?<![\p{L}])(?:ik ben|hier is|dit is|met|i['’]m|i am|this is|it['’]s|je suis|c['’]est|ich bin|hier ist|soy|sono|jestem|(?:hej|cześć|witam)[,!]?[ \u00a0]tu|aqui (?:é|fala)(?:[ \u00a0][ao])?|sou[ \u00a0][ao]|hi|hoi|hallo|hey|dear|beste|lieve|geachte|hello|bonjour|bonsoir|salut|coucou|cher|chère|liebe|lieber|moin|servus|guten tag|groeten|groet|gr\.|mvg|regards|cheers|thanks|thank you|best|sincerely|cordialement|bisous|bises|amitiés|bien à vous|à bientôt|grüßen|grüße|gruß|lg|mfg|vg|bedankt|merci|danke|xoxo|de la part de|signed(?: by)?|getekend(?: door)?|ondertekend door|gez\.|signé(?: par)?|gezeichnet|unterschrieben von|unterzeichnet von|collega|kollege|kollegin|collègue|colleague|contact|contacteer|kontaktieren sie|contactez|call|bel|ruf|appelez|ask|vraag|frag|demandez|e-?mail|mail)[,!:]?[ \u00a0\t]*(?:\n[ \u00a0\t]*)?/giu;

// A German doctor's faculty after "Dr.": "Dr. med. Schäfer", "Dr. med. dent. Jansen", "Dr. rer. nat.
// Weber". Left out, the title ended at "Dr." and the lower-case "med." stopped the name, which was
// sent in clear. Only after "Dr."/"Prof.": alone, "med." is an abbreviation like any other.
const DOCTOR_FACULTY = '(?:[ \\u00a0]+(?:med|dent|vet|univ|phil|nat|jur|rer|pol|oec|theol|habil|sc|h\\.[ \\u00a0]?c)\\.){0,4}';
// Italian forms of address, abbreviated with the ending after the full stop ("Gentile Sig.ra
// Bianchi", "Dott.ssa Verdi", "Avv. Rossi"): the feminine "Sig.ra" was read as a name "Sig" and
// ".ra", and the surname after it went out in clear.
// Italian writes them in lower case mid-sentence too ("con la dott.ssa Bianchi e con il sig.
// Rossi"); not "rag." and "geom." there, which end English and Dutch words' sentences.
const ITALIAN_TITLES =
  '(?:Sig\\.(?:ra|na)?|Sigg\\.|Dott\\.(?:ssa)?|Avv\\.(?:ta)?|Prof\\.ssa|Geom\\.|Rag\\.|Signora|Signorina|Signor|Dottoressa|Dottor|sig\\.(?:ra|na)?|sigg\\.|dott\\.(?:ssa)?|avv\\.(?:ta)?|prof\\.ssa)';
// Polish "Pan"/"Pani" and their declined forms ("z Panem Michałem Kowalczykiem", "Pani Katarzynie
// Wiśniewskiej"); the name after them is declined too, and no list knows it so. "Pan" alone leads
// English words ("Pan Am", "Pan European"): see polishPanHere.
const POLISH_TITLES = '(?:Pan(?:em|u|a|ie)?|Pani|Panią)';
// Spanish and Portuguese forms of address ("El Sr. Martínez llamó", "La Sra. Gutiérrez", "Prezado Sr.
// Almeida", "doña Pilar", "la Dra. Ruiz", "a Dr.ª Sousa"): none was a title, and the surname went out in
// clear. "Sr." is also English "senior" ("Sr. Engineer", "John Smith Sr."), and lower-case "don" an
// English verb: see iberianTitleHere. Capitalised "Don" is an English first name and stays one
// ("Don Ramírez" is masked whole).
const IBERIAN_TITLES = '(?:Sr\\.|Sra\\.|Srta\\.|Dra\\.|Dr\\.ª|Dña\\.|Doña|doña|don|sr\\.|sra\\.|srta\\.)';
// Titles and forms of address (case-sensitive: "Mr" is a title, "mr" is usually not — with its full
// stop it is the Dutch lawyer's title, which Dutch writes in lower case with the other academic
// ones: "mr. drs. E.J. van Dam", "dr. M. Kok", "ir.", "ing.", "prof.", "ds.").
const TITLE_COMMON =
  `(?:Dhr\\.?|dhr\\.|Mevr\\.?|mevr\\.|Mw\\.|mw\\.|Mevrouw|mevrouw|Meneer|meneer|[Dd]e heer|[Gg]eachte heer|Mejuffrouw|Drs\\.|Ir\\.|Ing\\.|mr\\.|drs\\.|dr\\.|ir\\.|ing\\.|prof\\.|ds\\.|Ds\\.|Mr\\.?|Mrs\\.?|Ms\\.?|Miss|Mx\\.?|Dr\\.?${DOCTOR_FACULTY}|Prof\\.?${DOCTOR_FACULTY}|Sir|Dame|Herrn?|Frau|Hr\\.|Fr\\.|Fräulein|Mme\\.?|Mlle\\.?|Monsieur|monsieur|Madame|madame|Mademoiselle|Ma[iî]tre|Pr\\.?|${ITALIAN_TITLES}|${POLISH_TITLES}|${IBERIAN_TITLES})`;
// The French "M." (monsieur) is read in every language: a short French message ("Rappeler M.
// Lefebvre svp") is too short for its language to be told, and was read as English. Outside French
// text it is checked for what else "M." is (see titleMHere).
const TITLE_FR_ONLY = '(?:M\\.)';
// Not inside a compound word: "Notre-Dame de Paris" is no title "Dame" before a name "de Paris".
// Titles chain ("Frau Dr.", Dutch "mr. drs.", "prof. dr. ir."); "M." only leads: after another
// title it is an initial ("dr. M. Kok", whose "M." was left in clear as a second title).
const TITLE = new RegExp(`(?<![\\p{L}\\p{N}-])(?:${TITLE_COMMON}|${TITLE_FR_ONLY})[ \\u00a0]+(?:${TITLE_COMMON}[ \\u00a0]+)*`, 'gu');

// The same titles opening a value under a name key ("Salarié : M. Julien Lefèvre", "Ansprechpartner:
// Herr Jonas Becker"): structure.ts keeps them outside the placeholder as prose does; taken in, one
// person had two placeholders, "[PERSON_1] a appelé … Salarié : [PERSON_2]". Only before a name.
const LEADING_TITLE = new RegExp(`^(?:${TITLE_COMMON}|${TITLE_FR_ONLY})[ \\u00a0]+(?:${TITLE_COMMON}[ \\u00a0]+)*(?=\\p{Lu}|(?:van|de|von|le|du|ter|ten)[ \\u00a0])`, 'u');

/** Length of the titles that open `value` before a name ("M. ", "Herr Dr. "), or 0. */
export function leadingTitleLength(value: string): number {
  return LEADING_TITLE.exec(value)?.[0].length ?? 0;
}

// Brands and places named after people: not a person when they appear without a cue. A few
// fictional characters and titles too ("Harry Potter en de Steen der Wijzen", "Romeo en Julia",
// "Sherlock Holmes"): a book or film spoken of names no one.
const EPONYM =
  /(?:Albert Heijn|Tommy Hilfiger|Hugo Boss|Louis Vuitton|Calvin Klein|Ralph Lauren|Christian Dior|Yves Saint Laurent|Giorgio Armani|Karl Lagerfeld|Jean Paul Gaultier|Marc O['’]Polo|Michael Kors|Ted Baker|Tom Tailor|Jack Wolfskin|Tim Hortons|Mercedes[- ]Benz|Walt Disney|Anne Frank (?:Huis|House|Haus|Stichting)|Johan Cruijff (?:ArenA|Arena)|Philips Stadion|Jeroen Bosch Ziekenhuis|Max Planck|Fraunhofer|Robert Koch|Charles de Gaulle|Georges Pompidou|Ben & Jerry['’]s|Marks & Spencer|Track (?:&|and|en) Trace|Johnson & Johnson|Fortnum & Mason|Dolce & Gabbana|Procter & Gamble|Abercrombie & Fitch|Barnes & Noble|Ernst & Young|Crabtree & Evelyn|Tate & Lyle|Lea & Perrins|Moët & Chandon|Victoria['’]s Secret|Simon Lévelt|Jacques Vabre|Douwe Egberts|Van Haren|Bonne Maman|Ben Sherman|Jack Daniel['’]?s|Johnnie Walker|Jim Beam|Tony['’]?s? Chocolonely|Galeries Lafayette|Marie Claire|Brandenburger Tor|Elizabeth [Ll]ine|Dr\. Oetker|Ritter Sport|Hugo Boss|Marc Jacobs|Paul Smith|Jean Louis David|Leroy Merlin|Franck Provost|Camille Albane|Jacques Dessange|Yves Rocher|Guy Degrenne|Claude Bernard|Anne Fontaine|Louis Delhaize|Otto Kern|Hans Anders|Max Mara|Jan Linders|Henri Willig|Ho Chi Minh|Louis Pion|Harry Potter|Sherlock Holmes|Peter Pan|Mary Poppins|Steen der Wijzen|Stein der Weisen|Rom[eé]o (?:en|and|und|et|e|y) Juli(?:a|et|ette|e)|Dr\. Martens|Levi['’]s(?=[ \u00a0](?:[Jj]eans|[Dd]enim|501|[Ss]tores?|[Ss]hops?|[Jj]ackets?))|Levi Strauss|Mona Lisa|Zwarte Piet|Claude (?:Code|Opus|Sonnet|Haiku|Agent|Desktop|Instant|Pro|Max|Team|Enterprise|API|SDK|\d))(?![\p{L}])/uy;

const EPONYM_KEYS = wordPrefixFilter(EPONYM.source).keys;

function isEponym(text: string, start: number): boolean {
  if (EPONYM_KEYS[foldCode(text.charCodeAt(start)) * 128 + foldCode(text.charCodeAt(start + 1))] === 0) return false;
  EPONYM.lastIndex = start;
  return EPONYM.test(text);
}

/** The source of a cue regex without its leading lookbehind (the pre-scan checks word starts). */
function body(re: RegExp): string {
  const m = /^\(\?<!\[[^\]]*\]\)/.exec(re.source);
  if (!m) throw new Error(`person: cue regex without a leading lookbehind: ${re.source}`);
  return re.source.slice(m[0].length);
}

interface Cue {
  re: RegExp;
  mode: Mode;
  /** Pre-scan bit: word starts whose first four characters may begin this cue. */
  bit: number;
  /** Tried at those word starts. */
  sticky: RegExp;
}

function cue(re: RegExp, mode: Mode, bit: number, keepLookbehind = false): Cue {
  // The candidates are word starts (a letter not preceded by a letter), which is what the
  // lookbehind `(?<![\p{L}])` asks; TITLE's also refuses a preceding number, so it stays there.
  const sticky = keepLookbehind ? new RegExp(re.source, 'yu') : new RegExp(body(re), re.flags.replace('g', '') + 'y');
  return { re, mode, bit, sticky };
}

// One pre-scan bit per cue regex.
const TITLE_BIT = registerCue(body(TITLE));
const CUES = [
  cue(STRONG_CUE, 'strong', registerCue(body(STRONG_CUE))),
  cue(SIGNOFF_LINE, 'strong', registerCue(body(SIGNOFF_LINE))),
  cue(TITLE, 'title', TITLE_BIT, true),
  cue(WEAK_CUE, 'weak', registerCue(body(WEAK_CUE))),
];
const BITS = CUES.map((c) => c.bit);
const SIGNOFF = 1;
const THANKS = /^(?:merci|danke|vielen|dank|bedankt|alvast|grazie|gracias|muchas|dzi[ęe]k|thanks in|thank you in)/iu;
const LINE_END_Y = /[ \t]*[.,!]?[ \t]*(?:\n|$)/y;

function endsItsLine(text: string, at: number): boolean {
  LINE_END_Y.lastIndex = at;
  return LINE_END_Y.test(text);
}

// "size M. Jackets", "maat M.", "taille M.": a clothing size.
const SIZE_WORDS = new Set(['size', 'sizes', 'maat', 'maten', 'taille', 'größe', 'grösse', 'gr', 'format']);
// "M. Sc.", "M. Eng.", "M. Phil.": a degree.
const DEGREES = new Set(['Sc', 'Eng', 'Ed', 'Phil', 'Arch', 'Mus', 'Res', 'Litt', 'Tech', 'Des', 'Com', 'Pharm', 'Jur', 'Div', 'Th', 'Fin', 'Sci']);

/**
 * Whether "M." at `at`, before the name at `pos`, is the title outside French text. Not the end of
 * initials or an acronym ("A.M. Okafor", which a cue before it reads with its initials; "K.L.M."),
 * a million or a metre after a number ("5 M. Euro"), a clothing size ("size M. Jackets"), a degree
 * ("M. Sc."). Then either a name the lists know (or a surname by its form) follows, or "M." opens
 * the text or a line ("M. Dupont a appelé hier"): elsewhere "M." ends as many labels ("Appendix M.
 * Details", "Plan M. Works", "Grootte: M. Kleur") as it opens names.
 */
function titleMHere(text: string, at: number, pos: number): boolean {
  if (at > 0 && text.charCodeAt(at - 1) === 46) return false;
  let k = at - 1;
  if (k >= 0 && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 0xa0)) k--;
  if (k >= 0 && text.charCodeAt(k) >= 48 && text.charCodeAt(k) <= 57) return false;
  if (SIZE_WORDS.has(wordBefore(text, at).word)) return false;
  const tok = tokenAt(text, pos);
  if (tok === null || DEGREES.has(tok)) return false;
  if (isSurname(tok) || knownFirst(tok)) return true;
  let b = at - 1;
  while (b >= 0 && (text.charCodeAt(b) === 32 || text.charCodeAt(b) === 9 || text.charCodeAt(b) === 0xa0)) b--;
  return b < 0 || text.charCodeAt(b) === 10;
}
// Offices a title addresses their holder by, in Polish (declined: "Panie Prezesie", "Pani
// Dyrektor"), Italian, German, French, Dutch and English: the beginnings of their forms. Not the
// offices that are also surnames or first names ("Richter", "Maire", "Judge", "Mayor").
const OFFICE_AFTER_TITLE_Y =
  /(?:Prezes|Dyrektor|Mecenas|Doktor|Minist|Profesor|Kierowni|Redaktor|Sędzi|Premier|Marszał|Domu|Dziekan|Rektor|Burmistrz|Prezydent|Komendant|Inspektor|Prokurator|Naczeln|Wójt|Staros|Kolego|Koleżank|Direttor|Direttric|Client|Responsabil|Dottor|Sindac|Avvocat|Presid|Rettor|Professor|Ingegner|Titolar|Amministrator|Gestor|Präsident|Bürgermeister|Vorsitzend|Président|Directeur|Directrice|Voorzitter|Burgemeester|Chairman|Chairwoman|Secretary|Ambassador)(?![\p{Ll}]{6})/uy;

/** Whether the word at `pos`, after a title, is an office its holder is addressed by ("Panie Prezesie", "sig. Direttore"). */
function addressedByOffice(text: string, pos: number): boolean {
  OFFICE_AFTER_TITLE_Y.lastIndex = pos;
  return OFFICE_AFTER_TITLE_Y.test(text);
}

// The words before a Spanish or Portuguese title: an article, a preposition, a salutation.
const IBERIAN_BEFORE_TITLE = new Set(
  'el la los las al del o os ao à do da dos das estimado estimada estimados querido querida prezado prezada prezados distinguido distinguida con com y'.split(' '),
);

/**
 * Whether "Sr."/"Sra."/"Srta." or lower-case "don" at `at` is the Spanish or Portuguese title before
 * the word at `pos`: a name the lists know follows (also without its accents), or an article, a
 * preposition or a salutation comes before the title ("El Sr. Ruiz", "Estimado Sr. Ibarra"). Not a
 * role after English "Sr." ("Sr. Engineer", "Sr. Product Manager").
 */
function iberianTitleHere(text: string, at: number, pos: number): boolean {
  const tok = tokenAt(text, pos);
  if (tok === null || ROLE_WORDS.has(tok) || isNonNameWord(tok)) return false;
  WORD_AFTER_Y.lastIndex = pos + tok.length;
  const next = WORD_AFTER_Y.exec(text);
  if (next !== null && ROLE_WORDS.has(next[1]!)) return false; // "Sr. Software Engineer"
  if (isSurname(tok) || knownFirst(tok)) return true;
  const plain = tok.normalize('NFD').replace(/\p{M}/gu, '');
  if (plain !== tok && (isKnownLastName(plain) || knownFirst(plain))) return true;
  return text.charCodeAt(at) !== 100 && IBERIAN_BEFORE_TITLE.has(wordBefore(text, at).word);
}
const IBERIAN_CHECKED_Y = /(?:Sr|Sra|Srta|sr|sra|srta)\.|don[ \u00a0]/y;

/** Whether "Pan" before `pos` is the Polish title: a first name or a surname the lists or its form know follows ("Pan Jan Nowak", "Pan Kowalski"). */
function polishPanHere(text: string, pos: number): boolean {
  const tok = tokenAt(text, pos);
  return tok !== null && !isNonNameWord(tok) && (knownFirst(tok) || isSurname(tok));
}

// Candidates are selective: even a few per word are cheaper tried one by one than a global scan.
const ALWAYS_STICKY = Infinity;

type Mode = 'strong' | 'title' | 'weak' | 'gazetteer';

function knownFirst(token: string): boolean {
  if (isKnownFirstName(token)) return true;
  // Anne-Sophie, Jean-Pierre, Hans-Peter: a compound whose first part is a known first name.
  const dash = token.indexOf('-');
  if (dash > 0 && isKnownFirstName(token.slice(0, dash))) return true;
  // DUPONT / JEAN written in capitals (a lower-case ASCII second letter rules that out cheaply).
  const c2 = token.charCodeAt(1);
  if (token.length > 1 && !(c2 >= 97 && c2 <= 122) && token === token.toUpperCase()) {
    const title = token[0] + token.slice(1).toLowerCase();
    return isKnownFirstName(title);
  }
  return false;
}

function tokenAt(text: string, i: number): string | null {
  // A token starts with an upper-case letter: ASCII A–Z, or beyond ASCII.
  const c = text.charCodeAt(i);
  if (c < 128 && !(c >= 65 && c <= 90)) return null;
  TOKEN_Y.lastIndex = i;
  const m = TOKEN_Y.exec(text);
  return m ? m[0] : null;
}

const firstOf = new Map<RegExp, FirstChars | null>();

/** End of the sticky regex's match at `i`, or -1; a character that cannot start one costs no call. */
function stickyAt(re: RegExp, text: string, i: number): number {
  let f = firstOf.get(re);
  if (f === undefined) {
    f = firstChars(re);
    firstOf.set(re, f);
  }
  if (f !== null) {
    const c = text.charCodeAt(i);
    if (c < 128 ? f.ascii[c] === 0 : !f.other) return -1;
  }
  re.lastIndex = i;
  return re.exec(text) ? re.lastIndex : -1;
}

/** An upper-case-only token is an acronym unless it is long or a known name ("DUPONT" ok, "BV" no). */
function acceptableToken(tok: string): boolean {
  if (isNonNameWord(tok)) return false;
  if (tok === tok.toUpperCase() && tok.length < 4 && !knownFirst(tok)) return false;
  return true;
}

/**
 * End of the particles that lead a surname at `i` ("van der", "de La", "Van de", "van 't", "d'"),
 * or -1 when there are none. Capitalised particles count only where `capitalised` allows: after a
 * first name ("Liesbeth Van de Velde") they are part of the name, at a sentence start they may
 * be an article.
 */
function particlesAt(text: string, i: number, capitalised: boolean): number {
  let j = i;
  for (let k = 0; k < 2; k++) {
    const p = stickyAt(PARTICLE_Y, text, j);
    if (p > 0) {
      j = p;
      continue;
    }
    const cp = capitalised || k > 0 ? stickyAt(CAP_PARTICLE_Y, text, j) : -1;
    if (cp > 0) {
      j = cp;
      continue;
    }
    break;
  }
  const a = stickyAt(APOS_PARTICLE_Y, text, j);
  if (a > 0) j = a;
  return j === i ? -1 : j;
}

/**
 * Reads a name starting at `pos`. Returns the end offset and whether it is more than one token,
 * or null. `mode` decides how much evidence the tokens themselves must bring.
 */
function parseName(text: string, pos: number, mode: Mode, language: Language): { end: number; tokens: number; first: string } | null {
  let i = pos;
  let hadInitials = false;
  if (mode === 'strong' || mode === 'title') {
    const e = stickyAt(INITIALS_Y, text, i);
    if (e > 0) {
      i = e;
      hadInitials = true;
      const sp = stickyAt(SPACE_Y, text, i);
      if (sp > 0) i = sp;
    }
    const p = stickyAt(CAP_PARTICLE_Y, text, i);
    if (p > 0 && tokenAt(text, p)) i = p;
    else if (hadInitials || mode === 'title') {
      // "mevrouw de Vries", "Herr von Goethe", "A.M. van der Berg"
      const lp = stickyAt(PARTICLE_Y, text, i);
      if (lp > 0 && tokenAt(text, lp)) i = lp;
    }
  }
  const ap = stickyAt(APOS_PARTICLE_Y, text, i);
  if (ap > 0 && mode !== 'gazetteer') i = ap;
  const first = tokenAt(text, i);
  if (!first) return null;
  const firstIsName = knownFirst(first);
  if (mode === 'weak' || mode === 'gazetteer') {
    // "met IBAN NL91…": a word in capitals that is also a common word is a label, not "Iban".
    if (!firstIsName || (first === first.toUpperCase() && isNonNameWord(first))) return null;
  } else if (!acceptableToken(first)) {
    return null;
  }
  i += first.length;
  let tokens = 1;
  let prevIsFirst = firstIsName || hadInitials;
  const cued = mode !== 'gazetteer';
  const maxTokens = cued ? MAX_CUED_NAME_TOKENS : 3;
  while (tokens < maxTokens) {
    let j = stickyAt(SPACE_Y, text, i);
    if (j < 0) break;
    const p = particlesAt(text, j, prevIsFirst);
    const viaParticle = p > 0;
    if (viaParticle) j = p;
    const tok = tokenAt(text, j);
    if (!tok || !acceptableToken(tok) || (tokens >= 2 && ROLE_WORDS.has(tok))) break;
    // "der Tobias vom Vertrieb", "Anna von Marketing": where one works, not a surname's particle (QA).
    if (viaParticle && (ORGANISATION_WORDS.has(tok.toLowerCase()) || ROLE_WORDS.has(tok) || (VOM_Y.test(text.slice(j - 4, j)) && !isSurname(tok)))) break;
    // "mevrouw Hendriks op de Dorpsstraat 12": a particle after a surname leads the street the
    // address takes, not the rest of the name; read as the name, the longer address won the
    // overlap and the name was sent in clear.
    if (viaParticle && !prevIsFirst && leadsAStreet(text, j, tok)) break;
    // After a first name (or initials) comes a middle name or the surname; after a surname only a
    // cue-introduced name continues ("Mijn naam is Xiomara Okafor"), and after a cue or title a
    // second surname ("Frau Maria Garcia Lopez", "Jan Peter van der Berg Hoogendoorn"): left
    // out, it was sent in clear beside the placeholder.
    if (!prevIsFirst && !viaParticle && !(mode === 'strong' && tokens < 3) && !(cued && surnameContinues(text, j, tok, language))) break;
    // A first name that is also a common word ("Will", "May", "Paris", "German") needs a surname
    // the gazetteer knows: "Will Smith" yes, "Paris Gare du Nord" or "German Steuer-ID" no. After a
    // particle one known by its form will do ("Will van Kowalski"), but not any word: a town that
    // is also a first name leads places so ("Santiago de Compostela").
    if (mode === 'gazetteer' && (AMBIGUOUS.has(first) || isNonNameWord(first)) && !(viaParticle ? isSurname(tok) : isKnownLastName(tok))) break;
    i = j + tok.length;
    tokens++;
    prevIsFirst = knownFirst(tok) && !viaParticle;
    if (!prevIsFirst && !cued) {
      // "Javier Fernández Ruiz": Spanish names carry two surnames, and the second was left in
      // clear beside the placeholder. One more word, and only a surname the lists know.
      // After a middle name too: "José Luis Pérez Sánchez" (the limit of three tokens left
      // "Sánchez" out).
      if (tokens === 2 || tokens === 3) {
        const e = secondSurnameEnd(text, i);
        if (e > 0) {
          i = e;
          tokens++;
        }
      }
      break;
    }
  }
  return { end: i, tokens, first };
}

const VOM_Y = /^(?:vom|zum|zur)[ \u00a0]$/u;
const STREET_ENDING = /(?:straat|laan|weg|plein|gracht|kade|singel|dijk|straße|strasse|platz|allee|gasse)$/iu;

/** Whether the word at `at` names a street: a house number after it, or a street word ending it. */
function leadsAStreet(text: string, at: number, tok: string): boolean {
  NUMBER_AFTER_Y.lastIndex = at + tok.length;
  return NUMBER_AFTER_Y.test(text) || STREET_ENDING.test(tok);
}

/**
 * End of a second surname right after a first name and a surname that end at `i` (one space, a
 * surname the lists know, also without its accents, that is no word, first name that is also a
 * word, role or street), or -1.
 */
function secondSurnameEnd(text: string, i: number): number {
  if (text.charCodeAt(i) !== 32 && text.charCodeAt(i) !== 0xa0) return -1;
  const tok = tokenAt(text, i + 1);
  if (tok === null || tok === tok.toUpperCase() || isNonNameWord(tok) || ROLE_WORDS.has(tok)) return -1;
  // "Cruz" alone is a first name that is also a word; as a second surname it is the name.
  if (AMBIGUOUS.has(tok) && !SECOND_SURNAME_WORDS.has(tok)) return -1;
  if (!isKnownLastName(tok) && !SECOND_SURNAME_WORDS.has(tok)) {
    const plain = tok.normalize('NFD').replace(/\p{M}/gu, '');
    if (plain === tok || !isKnownLastName(plain)) return -1;
  }
  if (leadsAStreet(text, i + 1, tok)) return -1;
  return i + 1 + tok.length;
}

// Spanish and Portuguese surnames that the name lists leave out as words ("morales", "pastor",
// "bravo", "guerra": see extra-names.txt), read only where a second surname stands, right after a
// first name and a known surname ("Rubén Castillo Morales"): there they are the name, and alone
// they stayed in clear beside the placeholder.
const SECOND_SURNAME_WORDS = new Set(
  'Morales Pastor Bravo Arias Marin Cortes Leon Pena Diez Guerra Salvador Prado Gallo Rey Mata Lima Paz Leal Franco Cruz'.split(' '),
);

// Name tokens after a cue or title, particles not counted: "Jan Peter van der Berg Hoogendoorn",
// "Ana María Fernández García" are four.
const MAX_CUED_NAME_TOKENS = 5;
const NUMBER_AFTER_Y = /[ \u00a0]?\d/y;
// The role or department that signatures and title-case text put after a name ("Jane Doe Senior
// Engineer", "Dr. Emily Watson Chief Medical Officer", "Jan Jansen Afdeling Inkoop"): not a surname.
const ROLE_WORDS = new Set(
  `Senior Junior Chief Head Lead Principal Manager Director Officer Office Engineer Developer Consultant Assistant Advisor
  Adviser Analyst Coordinator Specialist President Chairman Chairwoman Secretary Department Dept Sales Marketing Finance
  Support Legal Operations Product Account Partner Founder CEO CTO CFO COO HR IT
  Directeur Directrice Adviseur Medewerker Medewerkster Afdeling Hoofd Teamleider Secretaris Voorzitter Kantoor Beleidsmedewerker
  Responsable Chef Conseiller Conseillère Service Président Présidente Gérant Gérante Bureau Chargé Chargée`.split(/\s+/),
);

/**
 * Whether a capitalised word after a surname, with a cue or title before the name, is a further
 * surname. Not when a number follows it: that is a street and its house number ("Dhr. Jan Jansen
 * Kerkstraat 12"), which the address takes. German writes every noun with a capital ("Frau Anna
 * Schmidt Bescheid geben"), so there the word must be a surname the lists know (also without its
 * accents: "García" as "Garcia") or one known by its form.
 */
function surnameContinues(text: string, at: number, tok: string, language: Language): boolean {
  NUMBER_AFTER_Y.lastIndex = at + tok.length;
  if (NUMBER_AFTER_Y.test(text)) return false;
  if (language !== 'de') return true;
  if (isSurname(tok) || knownFirst(tok)) return true;
  const plain = tok.normalize('NFD').replace(/\p{M}/gu, '');
  return plain !== tok && isKnownLastName(plain);
}

// A sign-off, greeting or signature cue, then initials and a surname ("Cordialement, P. Martin",
// "Best, A. Smith", "Groeten, J. de Vries", "Dear J. Smith"): the initials say a person follows
// even when the surname is not on the lists. After "contact", "call", "bel", "mail" … initials
// may be an organisation's ("contact U.S. Customs"), so there the surname must be one the lists
// or its form know, or follow a particle ("call J. de Vries", "mail P. Janssens").
const INITIALS_CUES = new Set(
  `groeten groet gr. mvg regards cheers best sincerely cordialement bisous bises amitiés grüße gruß grüßen lg mfg vg xoxo
  dear beste geachte lieve liebe lieber cher chère hi hoi hallo hello hey bonjour bonsoir salut moin servus
  signed getekend ondertekend gez. signé gezeichnet unterschrieben unterzeichnet`
    .split(/\s+/)
    .concat(['bien à vous', 'à bientôt', 'thank you', 'de la part de']),
);
const CONTACT_CUES = new Set('contact contacteer contactez kontaktieren call bel ruf appelez ask vraag frag demandez mail e-mail email'.split(' '));
// Initials that are a country's or a body's, not a person's, whatever capitalised word follows.
const NOT_PERSONAL_INITIALS = new Set(['US', 'USA', 'UK', 'EU', 'UN', 'NY', 'DC']);

/** After which weak cue initials lead a name: any surname, one the lists know, or none (null). */
function initialsAllowedAfter(cue: string): 'any' | 'surname' | null {
  const word = cue.trim().replace(/[,!:]$/, '').toLowerCase();
  const first = word.split(/[ \u00a0]/)[0]!;
  if (INITIALS_CUES.has(first) || INITIALS_CUES.has(word)) return 'any';
  return CONTACT_CUES.has(first) ? 'surname' : null;
}

/**
 * Initials and a capitalised surname, maybe after particles ("P. Martin", "J. de Vries", "A.M. van
 * der Berg"), at `pos`; with `knownSurname`, the surname must be known or follow a particle.
 */
function initialledName(text: string, pos: number, knownSurname = false): { end: number; tokens: number; first: string } | null {
  let i = stickyAt(INITIALS_Y, text, pos);
  if (i < 0) return null;
  if (knownSurname && NOT_PERSONAL_INITIALS.has(text.slice(pos, i).replace(/[.\s]/g, ''))) return null;
  const sp = stickyAt(SPACE_Y, text, i);
  if (sp > 0) i = sp;
  const p = particlesAt(text, i, true);
  if (p > 0) i = p;
  const tok = tokenAt(text, i);
  // A word in capitals after initials is an acronym ("U.S. ARMY"), not a surname.
  if (!tok || !acceptableToken(tok) || tok === tok.toUpperCase()) return null;
  if (knownSurname && p < 0 && !isSurname(tok)) return null;
  return { end: i + tok.length, tokens: 2, first: tok };
}

// "Ik ben Jansen", "Je suis Dupont", "Ich bin Müller", "I'm Smith from accounting": one introduces
// oneself by surname alone as often as by a first name. What follows these cues is as often how or
// what one is, so the word must be a surname the lists know and no word of the common-word lists
// ("Ik ben Blij" is no surname; "I'm Fine" is a first name that is a word: AMBIGUOUS), nor a trade
// or origin German writes with a capital ("Ich bin Koch", "Ich bin Schweizer").
// Spanish, Italian and Polish ones too ("soy", "sono", "jestem"): as common before what one is, so
// they ask the same evidence ("Sono Felice" is how one is, not who).
// Where one works, after a name one introduces oneself with: "from accounting", "de contabilidad", "vom Vertrieb".
const AFFILIATION_AFTER_Y = /[ \u00a0](?:from|de|del|da|do|van|von|vom|aus|z|ze)[ \u00a0]\p{L}/uy;
const SELF_INTRODUCTION = new Set(['ik ben', "i'm", 'i am', 'je suis', 'ich bin', 'soy', 'sono', 'jestem']);
const WHAT_ONE_IS = new Set(
  'Koch Bauer Schneider Fischer Richter Meister Schüler Schreiber Kaufmann Zimmermann Förster Schäfer Krämer Bürger Schweizer Student Lehrer'.split(' '),
);

function isSelfIntroduction(cue: string): boolean {
  // Every weak cue's match comes here: the first letter rules out most without a string made.
  const c = cue.charCodeAt(0) | 32;
  if (c !== 105 && c !== 106 && c !== 115) return false; // i, j, s
  return SELF_INTRODUCTION.has(cue.trim().replace(/[,!:]$/, '').replace('’', "'").toLowerCase());
}

/** A known surname alone, maybe after particles ("Jansen", "De Jong", "van Dijk"), at `pos`, or null. */
function surnameAlone(text: string, pos: number): { end: number; tokens: number; first: string } | null {
  const p = particlesAt(text, pos, true);
  const i = p > 0 ? p : pos;
  const tok = tokenAt(text, i);
  if (!tok || tok === tok.toUpperCase() || !isKnownLastName(tok) || isNonNameWord(tok) || AMBIGUOUS.has(tok)) return null;
  if (WHAT_ONE_IS.has(tok) || NOUNS_BEFORE_SURNAMES.has(tok)) return null;
  return { end: i + tok.length, tokens: 1, first: tok };
}

const SENTENCE_START = /(?:^|[.!?:;\n•*>"“„«(-])[\s"“„«*_(-]*$/u;
const NEXT_WORD = /^[ \u00a0]+(\p{Ll}+|\p{Lu}|\d)|^([,!?;:)]|['’]s(?!\p{L})|$|\n|\.(?!\d))/u;

// "this Claude session", "a Claude agent", "the Claude models": a first name after an English
// article or demonstrative names a thing (a product, a model, a storm), not a person. Only English:
// "der Peter", "de Jan" are how people are spoken of in German and Flemish.
const DETERMINERS = new Set(['this', 'that', 'these', 'those', 'the', 'a', 'an', 'each', 'every', 'any', 'our', 'their', 'its']);

const TECH_AFTER = new Set(
  `cluster clusters node nodes database databases db deserialization serialization deserializer serializer library lib parser
  server servers instance instances query queries driver client schema keyspace annotation annotations mapper module plugin
  config configuration api sdk cli container containers pod pods replica replicas index indexes shard shards`.split(/\s+/),
);

// A first name, its possessive and a shop's noun name a business: "Emily's Bakery", "Luigi's
// Pizzeria", "Joe's Garage". Masked, the model no longer knew where the bread came from; the name
// is the shop's, not a person's in the message. Capitalised only: "Emily's bakery" is hers.
const SHOP_AFTER_POSSESSIVE_Y =
  /['’]s[ \u00a0](?:Bakery|Bakehouse|Kitchen|Caf[eé]|Coffee|Diner|Bistro|Restaurant|Pizzeria|Trattoria|Pub|Bar|Grill|Deli|Shop|Store|Boutique|Salon|Barbers?|Garage|Bakkerij|Kapsalon|Inn|Tavern|Tea[ \u00a0]?Room|Patisserie|Pâtisserie|Florist|Flowers|Books|Bookshop|Records|Hair|Nails|Beauty|Spa|Cakes|Donuts|Burgers|Pizza|Fish[ \u00a0]Bar|Market|Pantry|Creamery|Ice[ \u00a0]Cream)(?![\p{L}])/uy;

// First names that are also English verbs, and the words that follow such a verb as its object.
const VERB_NAMES = new Set(['Rob', 'Grant', 'Jimmy', 'Josh', 'Nick', 'Jack', 'Con', 'Hector', 'Badger']);
const OBJECT_WORDS = new Set(['the', 'a', 'an', 'my', 'your', 'our', 'his', 'her', 'their', 'its', 'this', 'that', 'these', 'those', 'them', 'him', 'me', 'us', 'it', 'everyone', 'all']);

// Developer tools named like people ("Hugo for the static site", "Setup: Kafka, Cassandra, Hadoop",
// "Use Jackson for JSON", "Hudson is deprecated", "Travis CI"): alone, with software spoken of
// within reach, the tool (QA). As with programming languages, words that speak of people too
// ("package", "team", "project") do not count.
const TOOLS_NAMED_LIKE_PEOPLE = new Set(['hugo', 'jackson', 'hudson', 'travis', 'cassandra', 'jenkins', 'jasmine', 'karma', 'ember', 'aurora', 'jasper', 'gatsby', 'sentry', 'nomad', 'consul', 'quarkus', 'celery']);
const TECH_TALK =
  /(?<![\p{L}])(?:json|yaml|xml|api|sdk|ci\/cd|pipelines?|deploy\w*|deprecated|framework|librar(?:y|ies)|plugins?|servers?|databases?|clusters?|docker|kubernetes|k8s|kafka|hadoop|lombok|maven|gradle|npm|github|gitlab|static site|site generator|config\w*|jvm|hibernate|aws|gcp|azure|redis|postgres\w*|mysql|mongodb|elasticsearch|nginx|serializ\w*|deserializ\w*|markdown|repos?|open[ -]source)(?![\p{L}])/iu;
const TECH_ACRONYMS = /(?<![\p{L}])(?:CI|CD)(?![\p{L}])/u;
const TECH_TALK_WINDOW = 80;

/** Whether the lone name at [start, end) is a developer tool, by the software spoken of around it. */
function toolHere(text: string, start: number, end: number, name: string): boolean {
  if (!TOOLS_NAMED_LIKE_PEOPLE.has(name.toLowerCase())) return false;
  const before = text.slice(Math.max(0, start - TECH_TALK_WINDOW), start);
  const after = text.slice(end, end + TECH_TALK_WINDOW);
  return TECH_TALK.test(before) || TECH_TALK.test(after) || TECH_ACRONYMS.test(before) || TECH_ACRONYMS.test(after) || CODE_TALK.test(after);
}

// Shops' brands beside which a firm named like a person is the brand too ("La tienda de Zara y
// Mango", "Zara, H&M en Primark"), and the shop's words before one ("tienda de Zara") (QA).
const SHOP_BRANDS = new Set('mango primark bershka uniqlo stradivarius oysho lefties zalando shein asos h&m c&a hema action ikea lidl aldi nike adidas puma'.split(' '));
const BRAND_LIST_NEXT_Y = /(?:,|[ \u00a0]*\/|[ \u00a0]+(?:and|or|en|of|und|oder|et|ou|y|e|i|o))[ \u00a0]+([\p{L}&]{2,20})/uy;
const BRAND_LIST_BEFORE = /([\p{L}&]{2,20})(?:,|[ \u00a0]*\/|[ \u00a0]+(?:and|or|en|of|und|oder|et|ou|y|e|i|o))[ \u00a0]+$/u;
const SHOP_BEFORE = /(?:^|[^\p{L}])(?:tiendas?|winkels?|shops?|stores?|boutiques?|magasins?|negozio|negozi|sklep|lojas?|laden|filiale)[ \u00a0]+(?:(?:de|del|van|bij|of|at|di|du|von|bei|da|do)[ \u00a0]+)?(?:(?:la|the|de|der)[ \u00a0]+)?$/iu;

/** Whether the lone name at [start, end) is a firm's brand: one of those named like people, by a shop's word or a brand beside it. */
function brandHere(text: string, start: number, end: number, name: string): boolean {
  if (!FIRMS_NAMED_LIKE_PEOPLE.has(name)) return false;
  if (SHOP_BEFORE.test(text.slice(Math.max(0, start - 24), start))) return true;
  BRAND_LIST_NEXT_Y.lastIndex = end;
  const next = BRAND_LIST_NEXT_Y.exec(text);
  if (next !== null && SHOP_BRANDS.has(next[1]!.toLowerCase())) return true;
  const previous = BRAND_LIST_BEFORE.exec(text.slice(Math.max(0, start - 28), start));
  return previous !== null && SHOP_BRANDS.has(previous[1]!.toLowerCase());
}

// "the Monroe Doctrine", "the Marie Kondo method", "the Heimlich manoeuvre": after "the", a name
// before (or ending in) one of these words names an idea, not a person (QA).
const THING_WORDS = new Set(
  `doctrine method methods principle principles effect theorem paradox law laws rule equation conjecture hypothesis technique
  approach test scale index diet formula constant curve distribution manoeuvre maneuver protocol procedure criteria
  criterion syndrome era administration plan treaty`.split(/\s+/),
);
const WORD_RIGHT_AFTER_Y = /[ \u00a0](\p{L}{2,16})(?![\p{L}])/uy;

/** Whether the name at [start, end), after "the", names an idea, a method or a law (see THING_WORDS). */
function namesAThing(text: string, start: number, end: number): boolean {
  if (wordBefore(text, start).word !== 'the') return false;
  const last = text.slice(text.lastIndexOf(' ', end - 1) + 1, end);
  if (last !== text.slice(start, end) && THING_WORDS.has(last.toLowerCase())) return true;
  WORD_RIGHT_AFTER_Y.lastIndex = end;
  const next = WORD_RIGHT_AFTER_Y.exec(text);
  return next !== null && THING_WORDS.has(next[1]!.toLowerCase());
}

const BRACKET_NOTE_AFTER = /^[ \u00a0]\((?=\p{Ll})/u;
const DURATION_AFTER = /^[ \u00a0]+\d{1,3}(?:[.,]\d)?[ \u00a0]?(?:days?|dagen|dag|Tage?n?|jours?|weeks?|weken|Wochen?|semaines?|hours?|uur|Stunden?|heures?)(?![\p{L}])/u;
// A list of three at least: "Anna, Pieter" alone is as often a surname and a first name (header-name.ts).
const LIST_FIRST_NAME_AFTER = /^,[ \u00a0]+(\p{Lu}\p{Ll}+)(?:,|[ \u00a0]+(?:and|en|und|et|y|e|i))[ \u00a0]+\p{Lu}/u;

/** A lone gazetteer first name: accept unless it could be an ordinary word here. */
function loneNameOk(text: string, start: number, end: number, token: string): boolean {
  if (AMBIGUOUS.has(token) || isNonNameWord(token)) return false;
  if (text.charCodeAt(end) === 39 || text.charCodeAt(end) === 0x2019) {
    if (stickyAt(SHOP_AFTER_POSSESSIVE_Y, text, end) > 0) return false;
  }
  if (token.length < 3 || token === token.toUpperCase()) return false;
  const after = text.slice(end, end + 24);
  // "Jennifer (flu) and Michael (back pain) are off": a bracket of lower-case words after the name
  // says what about the person (QA: the names were left in clear beside health data).
  if (BRACKET_NOTE_AFTER.test(after)) return !DETERMINERS.has(wordBefore(text, start).word);
  const m = NEXT_WORD.exec(after);
  if (!m) return false;
  // "Daan 3 days, Noor 5 days": a count of days or hours after the name (QA).
  if (m[1] !== undefined && /\d/.test(m[1])) return DURATION_AFTER.test(after); // not "Max 5 items", "Jan 12"
  // "Jackson deserialization", "Cassandra cluster": a library or a database named like a person.
  if (m[1] !== undefined && TECH_AFTER.has(m[1])) return false;
  const before = text.slice(Math.max(0, start - 4), start);
  if (SENTENCE_START.test(before) || start === 0) {
    // "Sick: Jennifer, Michael, Stephanie", "Daan, Noor en Sem zijn ziek": the first of a list of first names (QA).
    // The window after the name is 24 characters: enough for a first name, its joint and the next capital.
    if (m[2] === ',') {
      const next = LIST_FIRST_NAME_AFTER.exec(after)?.[1];
      return next !== undefined && knownFirst(next) && !AMBIGUOUS.has(next) && !isNonNameWord(next);
    }
    // Sentence-initial capitals say nothing; accept only when a verb-like lower-case word follows.
    // "Rob the bank", "Grant them access": a first name that is also a verb, before its object (QA).
    if (m[1] !== undefined && VERB_NAMES.has(token) && OBJECT_WORDS.has(m[1])) return false;
    return m[1] !== undefined && /^\p{Ll}/u.test(m[1]);
  }
  const determiner = wordBefore(text, start).word;
  if (!DETERMINERS.has(determiner)) return true;
  // German "an", Spanish and Italian "a" take people ("Schick es an Sabine.", "Mándaselo a Lucía.",
  // "Mandalo a Giulia."): English writes "an" only before a vowel, and "a" before a name only as an
  // article of the noun after it ("a Claude session") (QA).
  if (determiner === 'an') return !/^[AEIOUÄÖÜ]/u.test(token);
  if (determiner === 'a') return !(m[1] !== undefined && /^\p{Ll}/u.test(m[1]));
  return false;
}

// Surnames known by their form where the name lists have none: Slavic -ović/-ević/-ić, Polish
// -ski/-cka/-wicz/-czyk, Romanian -escu/-eanu, Turkish -oğlu, Greek -opoulos/-akis/-idis, Nordic
// -sson/-dóttir, Ukrainian -enko/-chuk, Georgian -shvili/-dze, Russian, Ukrainian and Bulgarian
// -ov/-ova/-ev/-eva, Czech and Slovak -ová. Words of the four languages rarely end so (the shortest
// are held to a length: "Lesson" is a word, "Nilsson" a name; "Kiev" is too short to count), and
// the few places and words that do are listed (NOT_SURNAMES_BY_FORM).
const SURNAME_ENDING = /(?:ić|ič|wicz|czyk|czak|skim|skiego|skiemu|ską|skiej|ckim|ckiego|ckiemu|cką|ckiej|czykiem|czyka|czykowi|czakiem|wiczem|wicza|escu|eanu|oğlu|opoulos|akis|idis|iadis|enko|chuk|shvili|dze|ski|ska|cki|cka|dzki|dzka|sson|dóttir|dottir|ová|ova|eva|ov|ev)$/u;
// Polish surnames as Polish declines them ("z Tomaszem Lewandowskim", "Pani Wiśniewskiej", "z
// Kowalczykiem") end so too: the second of two names went out in clear.
const LONGER_STEM = new Set([
  'ski', 'ska', 'cki', 'cka', 'dzki', 'dzka', 'sson', 'dóttir', 'dottir',
  'skim', 'skiego', 'skiemu', 'ską', 'skiej', 'ckim', 'ckiego', 'ckiemu', 'cką', 'ckiej', 'czykiem', 'czyka', 'czykowi', 'czakiem', 'wiczem', 'wicza',
]);
const NOT_SURNAMES_BY_FORM = new Set(['Geneva', 'Genova', 'Moldova', 'Casanova', 'Villanova', 'Terranova', 'Supernova', 'Bossanova', 'Improv', 'Rostov', 'Kishinev', 'Kharkov', 'Lviv']);

/** A surname the lists know, or one known by its form (SURNAME_ENDING). */
function isSurname(tok: string): boolean {
  if (isKnownLastName(tok)) return true;
  // An ending anchored at the end only: this runs for most capitalised words after another.
  const ending = SURNAME_ENDING.exec(tok)?.[0];
  return ending !== undefined && tok.length - ending.length >= (LONGER_STEM.has(ending) ? 4 : 3) && !NOT_SURNAMES_BY_FORM.has(tok);
}

// Surnames that are as often the German noun after another capitalised noun: an insurer's
// "Protokoll Teamrunde Schaden", "Abteilung Schaden", "Leiter Kosten". A title still reads the person.
const NOUNS_NOT_SURNAMES = new Set(['Schaden', 'Kosten', 'Kasse', 'Recht']);

/** End of a known surname (optionally after particles) right after `i`, or -1. */
function knownSurnameAfter(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c !== 32 && c !== 0xa0) return -1; // what SPACE_Y needs, without a regex call
  // Ní, Nic, Ó, Uí, Mhic: a regex call only when the next word starts so.
  const n = text.charCodeAt(i + 1);
  const irish = n === 78 || n === 77 || n === 85 || n === 0xd3 ? stickyAt(IRISH_PARTICLE_Y, text, i) : -1;
  if (irish > 0) {
    const tok = tokenAt(text, irish);
    return tok && acceptableToken(tok) && tok !== tok.toUpperCase() ? irish + tok.length : -1;
  }
  let j = stickyAt(SPACE_Y, text, i);
  if (j < 0) return -1;
  // Particles in either case: "Faf du Plessis", and "Francois Du Plessis", "Rassie Le Roux", where
  // before only the known first name let a capitalised particle in and "Francois" went out in clear.
  const p = Math.max(stickyAt(PARTICLE_Y, text, j), stickyAt(CAP_PARTICLE_Y, text, j));
  if (p > 0) j = p;
  const tok = tokenAt(text, j);
  // A surname that is also a first name ("Robert", "Thomas") may start the real name instead:
  // "Under Robert Taylor" is "Robert Taylor"; the token loop will reach it.
  if (!tok || !isSurname(tok) || isNonNameWord(tok) || knownFirst(tok) || NOUNS_NOT_SURNAMES.has(tok)) return -1;
  // A brand named after people opens there ("Compare Marks & Spencer", "Try Marks & Spencer"): the
  // word before it is a verb, not a first name; the token loop skips the brand.
  if (isEponym(text, j)) return -1;
  return j + tok.length;
}

// A lone first name right after a travel word is a town ("naar Florence", "fly into Charlotte",
// "nach Jena", "via Darwin"): not a person.
// French "visiter" takes places only (a person is "rendu visite"): "visiter Nancy et Metz".
// Not Dutch "naar", which takes people as often ("Stuur het door naar Femke", "De klant vraagt naar
// Hanneke"): after it only a town of TOWN_NAMES is one (QA).
const TRAVEL_WORDS = new Set(['via', 'richting', 'into', 'nach', 'richtung', 'vers', 'towards', 'toward', 'visiter', 'visite', 'visité', 'visitée', 'visitez', 'visitons']);
// After a preposition that also takes people ("to", "à", "in"), only towns that are also first
// names, and only when a word of travel or dwelling comes shortly before: "fly to Charlotte",
// "j'habite à Nancy", but "give it to Charlotte".
const PLACE_WORDS = new Set(['to', 'in', 'at', 'from', 'à', 'a', 'en', 'de', 'pour', 'aus', 'bei', 'uit', 'van', 'te']);
const TOWN_NAMES = new Set(
  `Charlotte Nancy Florence Victoria Adelaide Lourdes Sydney Austin Dallas Orlando Jena Darwin Lorraine Hamilton
  Chester Lincoln Regina Augusta Eugene Alexandria Marion Valence Laval Albert Vienne Jackson Phoenix Denver Tyler
  Beverly Shannon Kingston Clifton Preston Eden Lorient Colombes Jersey Chelsea Aurora Sofia Lucerne Geneva Vienna
  Sion Emden Hameln Celle Gera Hagen Moers Hilden Herne Bergen Lisse Leek Epe Ede Emmen Velp Vianen`
    .split(/\s+/)
    .filter(Boolean),
);
// Within the two words before the preposition: "fly to", "flew back to", "je vais à", "woon in".
const TRAVEL_CONTEXT =
  /(?:^|[^\p{L}])(?:fly|flew|flights?|flying|stay\w*|holidays?|vacation|vakantie|urlaub|drive|drove|driving|train|ticket|billet|travel\w*|trip|move[ds]?|moving|going|heading|live[ds]?|living|based|born|visit\w*|vais|va|allons|vont|aller|allé[es]?|pars|part|partons|partir|arrive\w*|habite\w*|vi[st]|vivons|vivre|déménag\w*|vol|rentre\w*|né[es]?|fahr\w*|fuhr\w*|flieg\w*|flog|reise\w*|wohn\w*|zieh\w*|zog|geboren|rijd\w*|reed|vlieg\w*|vloog|reis\w*|woon\w*|verhuis\w*|vertrek\w*)[ \u00a0]+(?:[\p{L}'’]+[ \u00a0]+)?$/iu;

// Programming languages named like people: alone, with code spoken of around them ("port this
// script from ruby to julia", "is Julia faster than Python"), they are the language. The words of
// code are those that rarely speak of anything else: not "package", "library", "rewrite",
// "language" or "port", which "Julia" as a person does too.
const LANGUAGES_NAMED_LIKE_PEOPLE = new Set(['julia', 'ada', 'pascal', 'ruby', 'crystal', 'haskell', 'lua']);
const CODE_TALK =
  /(?<![\p{L}])(?:code|coding|coder|scripts?|scripting|syntax|programm\w*|programs?|compiler|interpreter|snippet|repl|jit|benchmarks?|notebook|python|javascript|typescript|java|rust|golang|kotlin|perl|php|scala|fortran|cobol|matlab|elixir|erlang|clojure|numpy|pandas|dataframe|c\+\+|c#)(?![\p{L}])/iu;
const CODE_TALK_WINDOW = 80;

// In a code comment ("// port from ruby to julia", "# ruby → julia"), another language named like a
// person beside it is code talk too: the comment speaks of the code around it. In prose two such
// names may be two people ("from ruby to julia" in a chat).
const COMMENT_BEFORE = /(?:^|[^:\p{L}\p{N}/])\/\/|\/\*|(?:^|[ \t])#(?=[ \t])|^[ \t]*(?:\*|--)[ \t]/u;
const LANGUAGE_NAMED_LIKE_A_PERSON = new RegExp(`(?<![\\p{L}])(?:${[...LANGUAGES_NAMED_LIKE_PEOPLE].join('|')})(?![\\p{L}])`, 'iu');

/** Whether [start, …) follows a comment marker on its line (at most CODE_TALK_WINDOW characters back). */
function inCodeComment(text: string, start: number): boolean {
  // Only the window is searched for the line's start: a long line costs no more than the window.
  const window = text.slice(Math.max(0, start - CODE_TALK_WINDOW), start);
  return COMMENT_BEFORE.test(window.slice(window.lastIndexOf('\n') + 1));
}

/** Whether the lone name at [start, end) is a programming language, by the code spoken of around it. */
function programmingLanguageHere(text: string, start: number, end: number, name: string): boolean {
  if (!LANGUAGES_NAMED_LIKE_PEOPLE.has(name.toLowerCase())) return false;
  const before = text.slice(Math.max(0, start - CODE_TALK_WINDOW), start);
  const after = text.slice(end, end + CODE_TALK_WINDOW);
  if (CODE_TALK.test(before) || CODE_TALK.test(after)) return true;
  return (LANGUAGE_NAMED_LIKE_A_PERSON.test(before) || LANGUAGE_NAMED_LIKE_A_PERSON.test(after)) && inCodeComment(text, start);
}

// "je vais parler à Nancy", "going to talk to Charlotte": a person after all.
const SPEECH_BEFORE =
  /(?:^|[^\p{L}])(?:parler|dire|demander|écrire|répondre|envoyer|donner|montrer|talk|speak|say|give|send|write|tell|ask|show|explain|reply|praten|zeggen|vragen|schrijven|geven|sturen|sprechen|sagen|fragen|schreiben|geben|schicken)[ \u00a0]+$/iu;

// Code: "class Victor", "extends Jules", "<Pierre />" name a type or a component, not a person.
const CODE_WORDS = new Set(['class', 'extends', 'new', 'interface', 'enum', 'struct', 'type', 'def', 'function', 'import', 'trait', 'record']);

// A type before a variable it declares: "Alice alice = new Alice(…)", "Bob bob;" (the statement ends
// the line: "Pieter belde; ik …" is prose). A type is one word: "Pieter Bakker" never declares.
const DECLARATION_AFTER = /^[ \t]+[a-z_$][\w$]{0,40}[ \t]*(?:=[^=]|;[ \t]*(?:\r?\n|$))/;

function isCodeIdentifier(text: string, start: number, end: number): boolean {
  const before = text.charCodeAt(start - 1);
  if (before === 60 || (before === 47 && text.charCodeAt(start - 2) === 60)) return true; // <Name, </Name
  if (CODE_WORDS.has(wordBefore(text, start).word)) return true;
  return DECLARATION_AFTER.test(text.slice(end, end + 48)) && !/\s/.test(text.slice(start, end));
}

// Lower-case particles that lead a surname mid-sentence. Not "den" ("den Haag") and not French
// "de", which comes before every town ("de Paris", "de Metz").
const SURNAME_PARTICLES = new Set(['van', 'von', 'zu', 'ter', 'ten', 'de', 'van der', 'van den', 'van de', "van 't", 'von der']);

/** Whether a lower-case word ending like a particle (van, de, zu, ter, 't) and a space come before `start`: a cheap filter. */
function endsLikeParticle(text: string, start: number): boolean {
  if (start < 3 || text.charCodeAt(start - 1) !== 32) return false;
  const c = text.charCodeAt(start - 2);
  return c === 110 || c === 101 || c === 117 || c === 114 || c === 116; // n e u r t
}

/** Start of the lower-case particles right before `start` ("van der " → its "v"), or -1. */
function particlesBefore(text: string, start: number, language: Language): number {
  const one = wordBefore(text, start);
  if (one.word === '' || one.word !== text.slice(one.at, one.at + one.word.length)) return -1; // lower case only
  // "van 't Hof": the apostrophe of "'t" belongs to the particle.
  const apostrophe = one.word === 't' && (text[one.at - 1] === "'" || text[one.at - 1] === '’');
  const two = wordBefore(text, apostrophe ? one.at - 1 : one.at);
  const pair = two.word === 'van' || two.word === 'von' ? `${two.word} ${apostrophe ? "'t" : one.word}` : '';
  let from = -1;
  if (pair !== '' && SURNAME_PARTICLES.has(pair)) from = two.at;
  else if (SURNAME_PARTICLES.has(one.word) && !(one.word === 'de' && language === 'fr')) from = one.at;
  if (from <= 0) return -1; // a sentence opening with "de Boer" is an article more often than not
  return from;
}

// Makers whose name is also a surname: "la Renault Clio", "une Peugeot 208".
const MAKERS = new Set(['Renault', 'Peugeot', 'Citroën', 'Citroen', 'Michelin', 'Porsche', 'Opel', 'Dacia', 'Škoda', 'Skoda', 'Volvo', 'Lidl', 'Aldi']);

// Car, van and motorbike makers. An insurer's claims name the car in every other line, and its
// models are named like people ("Seat Leon", "Škoda Octavia", "Alfa Romeo Giulia", "Mercedes Vito",
// "Renault Clio"): read alone the model was a first name, "Hij rijdt een Mercedes [PERSON_1]". The
// words after a maker are its model (see vehicleEnd). Two-word makers by their first word.
const VEHICLE_MAKERS = new Set(
  `Renault Peugeot Citroën Citroen Porsche Opel Dacia Škoda Skoda Volvo Seat SEAT Cupra Kia Hyundai Toyota Nissan Honda Mazda
  Suzuki Mitsubishi Subaru Lexus Tesla Ford Fiat Lancia Ferrari Lamborghini Maserati Audi BMW VW Volkswagen Mercedes
  Mercedes-Benz Mini MINI Jeep Jaguar Polestar BYD MG DS Smart Saab Chevrolet Chrysler Dodge Cadillac Lotus Bentley
  Rolls-Royce Iveco Scania DAF Piaggio Vespa Yamaha Kawasaki Ducati Harley-Davidson Gazelle Batavus Sparta`.split(/\s+/),
);
const TWO_WORD_MAKERS = new Map([
  ['Alfa', 'Romeo'],
  ['Land', 'Rover'],
  ['Range', 'Rover'],
  ['Aston', 'Martin'],
]);
const MODEL_WORD_Y = /[ \u00a0]([\p{Lu}\d][\p{L}\d]*(?:-[\p{L}\d]+)?)(?![\p{L}\p{N}])/uy;

/**
 * End of a maker and its model at `start` ("Seat Leon", "Alfa Romeo Giulia", "Tesla Model Y",
 * "Peugeot 208"), or -1. A model word is a number, a code in capitals, or a capitalised word that
 * is no surname the lists know only as a surname: "Mercedes Jansen" is a person, "Mercedes Vito"
 * a van. A title or cue before the maker reads the person first ("Mevrouw Mercedes Jansen").
 */
function vehicleEnd(text: string, start: number, tok: string | null = tokenAt(text, start)): number {
  if (tok === null) return -1;
  let i = start + tok.length;
  if (!VEHICLE_MAKERS.has(tok)) {
    const second = TWO_WORD_MAKERS.get(tok);
    if (second === undefined || !text.startsWith(second, i + 1) || (text.charCodeAt(i) !== 32 && text.charCodeAt(i) !== 0xa0)) return -1;
    i += 1 + second.length;
    if (isLetterCode(text.charCodeAt(i))) return -1;
  }
  let models = 0;
  for (; models < 2; models++) {
    MODEL_WORD_Y.lastIndex = i;
    const m = MODEL_WORD_Y.exec(text);
    if (m === null) break;
    const word = m[1]!;
    const code = /\d/.test(word) || (word === word.toUpperCase() && word.length <= 4);
    if (!code && (isNonNameWord(word) || (isKnownLastName(word) && !knownFirst(word)) || isSurname(word))) break;
    i = MODEL_WORD_Y.lastIndex;
  }
  return models > 0 ? i : -1;
}

// A storm's, a hurricane's or a pressure system's name: "Storm Ashley", "orkaan Ciarán", "tempête
// Alex", "Sturm Sabine", "Tief Bernd", "Hurricane Helene". Storms are given first names, and an
// insurer's claims name them all day; masked, the model no longer knew which storm did the damage.
// German "Tief" and "Hoch" count only capitalised (the nouns: "tief" is deep).
const EVENT_WORDS = new Set(
  'storm hurricane orkaan tempête sturm orkan typhoon cyclone taifun zyklon ouragan tornado wirbelsturm tropensturm uragano huracán tormenta'.split(' '),
);
const EVENT_NOUNS = new Set(['Tief', 'Hoch', 'Tiefdruckgebiet', 'Hochdruckgebiet', 'Sturmtief']);

/** Whether the one-word name at [start, end) is an event's: an event word before it, and no surname the lists know only as one. */
function namesAnEvent(text: string, start: number, end: number): boolean {
  const before = wordBefore(text, start);
  if (before.word === '') {
    if (!EVENT_NOUNS.has(longWordBefore(text, start))) return false;
  } else if (!EVENT_WORDS.has(before.word) && !EVENT_NOUNS.has(text.slice(before.at, before.at + before.word.length))) {
    return false;
  }
  const name = text.slice(start, end);
  if (/[ \u00a0]/.test(name)) return false;
  // "after the storm Anna called": after a lower-case "storm" a verb of speech says it is a person.
  if (before.word !== '' && text.charCodeAt(before.at) >= 97 && SPEECH_AFTER_Y.test(text.slice(end, end + 16))) return false;
  return knownFirst(name) || !isSurname(name);
}
const SPEECH_AFTER_Y =
  /^,?[ \u00a0]+(?:called|calls|rang|phoned|said|says|asked|asks|wrote|emailed|belde|belt|zei|zegt|vroeg|vraagt|mailde|schreef|schrijft|sagt|sagte|rief|fragte|schrieb|dit|disait|appelle|demande)(?![\p{L}])/u;

/** The word (any length up to 24 letters) right before `start` and one space, as written, or ''. */
function longWordBefore(text: string, start: number): string {
  if (text.charCodeAt(start - 1) !== 32 && text.charCodeAt(start - 1) !== 0xa0) return '';
  let i = start - 1;
  while (i > 0 && start - i < 25 && isLetterCode(text.charCodeAt(i - 1))) i--;
  return text.slice(i, start - 1);
}

// Diseases and syndromes named after a person: "ziekte van Pfeiffer", "Addison's disease",
// "syndrome de Gilles de la Tourette", "Morbus Crohn". The disease is what a claim is about; the
// physician's name names no one in it.
const DISEASE_BEFORE =
  /(?:^|[^\p{L}])(?:ziekte|syndroom|aandoening|disease|syndrome|morbus|maladie|krankheit|syndrom|sindrome|síndrome|enfermedad|malattia|morbo|choroba|zespół)(?:[ \u00a0]+(?:van|von|de|of|du|des|di|del|della|d['’]))?[ \u00a0]*$/iu;
const DISEASE_AFTER_Y = /(?:['’]s?)?[ \u00a0-](?:[Dd]isease|[Ss]yndrome|[Ss]yndroom|[Zz]iekte|[Kk]rankheit|[Ss]yndrom|[Ll]ymphoma|[Ll]ymfoom|[Dd]ementia|[Dd]ementie|[Dd]emenz)(?![\p{L}])/uy;

// The eponyms a disease word before them names ("ziekte van Pfeiffer"): only these, since "de
// ziekte van Jansen" or "van Anna" is as often that person's illness.
const MEDICAL_EPONYMS = new Set(
  `Pfeiffer Lyme Crohn Parkinson Alzheimer Hodgkin Addison Down Asperger Huntington Tourette Cushing Graves Hashimoto Bechterew
  Duchenne Raynaud Sjögren Ménière Meniere Kahler Creutzfeldt-Jakob Guillain-Barré Paget Kawasaki Wilson Gaucher Marfan
  Ehlers-Danlos Dupuytren Scheuermann Perthes Bell Horton Kaposi Gehrig Tay-Sachs Quervain Behçet Whipple Bornholm Weil
  Hirschsprung Charcot Ledderhose Peyronie Osgood-Schlatter Legg-Calvé-Perthes Basedow Graves-Basedow Korsakov Korsakoff
  Tietze Sudeck Reiter Reye Rett Angelman Klinefelter Turner Noonan Williams Sjogren Lou Stargardt Usher Waardenburg Wolff-Parkinson-White`.split(/\s+/),
);

/**
 * Whether the name at [start, end) names a disease by its eponym: "Addison's disease", "Hodgkin
 * lymphoma", or a disease word before one of the eponyms ("ziekte van Pfeiffer", "syndrome de
 * Gilles de la Tourette").
 */
function namesADisease(text: string, start: number, end: number): boolean {
  const last = text.slice(start, end).split(/[ \u00a0]/).at(-1)!;
  DISEASE_AFTER_Y.lastIndex = end;
  if (DISEASE_AFTER_Y.test(text) && (start === end - last.length || MEDICAL_EPONYMS.has(last))) return true;
  return MEDICAL_EPONYMS.has(last) && DISEASE_BEFORE.test(text.slice(Math.max(0, start - 20), start));
}

/** The word right before `start` (after spaces), lower case, or '' when none or longer than 9. */
function wordBefore(text: string, start: number): { word: string; at: number } {
  let end = start;
  while (end > 0 && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 0xa0)) end--;
  if (end === start) return { word: '', at: start };
  let i = end;
  while (i > 0 && end - i < 9 && isLetterCode(text.charCodeAt(i - 1))) i--;
  if (i > 0 && isLetterCode(text.charCodeAt(i - 1))) return { word: '', at: i };
  return { word: text.slice(i, end).toLowerCase(), at: i };
}

function isTownHere(text: string, start: number, token: string): boolean {
  const before = wordBefore(text, start);
  if (TRAVEL_WORDS.has(before.word)) return true;
  if (before.word === 'naar') return TOWN_NAMES.has(token);
  if (!TOWN_NAMES.has(token) || !PLACE_WORDS.has(before.word)) return false;
  const window = text.slice(Math.max(0, before.at - 40), before.at);
  return TRAVEL_CONTEXT.test(window) && !SPEECH_BEFORE.test(window);
}

// A surname led by a capitalised particle, anywhere in a sentence ("Von Berg schreibt", "De la
// Croix a signé", "… is De Jong, maar"): a name when the surname is known, or when a verb of speech
// or action follows it or "is" comes before it. "Zu" and the French one-word articles ("Le", "La",
// "Du") lead too many ordinary phrases to go on a verb alone.
const LEAD_PARTICLE_Y = /(?:Vanden|Vander|Vande|Van der|Van den|Van de|Van ['’]t|Von der|De la|De los|Van|Von|De|Ter|Ten|Zu|Du|Le|La|Nic|Ní|Uí)[ \u00a0](?=\p{Lu})/uy;
const IRISH_LEAD = new Set(['Nic', 'Ní', 'Uí']);
const WEAK_PARTICLES = new Set(['Zu', 'Du', 'Le', 'La']);
const VERB_AFTER =
  /^,?[ \u00a0]+(?:heeft|had|zegt|zei|schrijft|schreef|belt|belde|vraagt|vroeg|stuurt|stuurde|meldt|mailt|komt|wil|says|said|writes|wrote|called|calls|asked|asks|has|sent|replied|wants|a|dit|écrit|appelle|demande|veut|souhaite|avait|schreibt|schrieb|sagt|sagte|hat|hatte|fragt|ruft|meldet|will|schickt)(?![\p{L}])/u;
const IS_BEFORE = /(?:^|[^\p{L}])(?:is|ist|est|was|war|heet|heißt|hei[ßs]t|from|van|von|de|of)[ \u00a0]+$/u;

// Dutch nouns that, capitalised after the article "de", name a place, a building, a river, a
// shop or a primary school ("groep 4 van De Regenboog") ("De Dam ligt in het centrum", "de geschiedenis van De Kuip", "op de Dam", "De Bijenkorf
// heeft uitverkoop"): the article is spelt as the surname particle, so "De Dam" was read as a
// surname, by the lists (which write "Dam" for "van Dam", without its particle) or by a verb after
// it or "van" before it, and "[PERSON_1] ligt in het centrum" was sent. Here such a word after a
// lone "de" is the place unless a verb of speech says a person is meant ("De Dam belde"); a title
// or a strong cue still reads the person ("meneer De Dam", "Naam: De Kuip"), and "van de Dam",
// "Van den Berg" keep their particles. Only nouns that lead no surname of their own after "De":
// the toponyms the lists hold for "van" surnames (Dam, Dijk, Berg, Meer, Veen …), not the trades,
// animals and adjectives that do ("De Boer", "De Vos", "De Haan", "De Groot", "De Wit", "De Waal").
const PLACE_NOUNS_AFTER_DE = new Set(
  `Dam Dijk Berg Meer Linden Heuvel Veen Broek Beek Vliet Wijk Horst Kamp Brink Hoek Akker Poel Haar Laan
  Kuip Waag Munt Pijp Wallen Jordaan Bijenkorf Efteling Brug Haven Markt Kerk Toren Molen Plein Poort Kade Gracht Sluis
  Stad Zee Burcht Hallen Schouwburg Stadion Singel Vaart Dom Rotte Maas Rijn Schelde Amstel Zaan Vecht Lek IJssel
  Veluwe Betuwe Achterhoek Peel Kempen Uithof Nachtwacht Koepel Tuin Zaal Hal
  Regenboog Vlinder Zonnebloem Klimop Fontein Kameleon Springplank Wegwijzer Zevensprong Schakel Sleutel Kompas
  Vuurtoren Morgenster Piramide Meander Waterlelie Tamboerijn Notenkraker Bolster Wereldwijzer Boomgaard Ark Horizon`.split(/\s+/),
);

/** Whether the known surname or word `tok` at `at`, after a lone article "de"/"De", names a place (see PLACE_NOUNS_AFTER_DE). */
function placeAfterArticle(text: string, at: number, tok: string): boolean {
  if (!PLACE_NOUNS_AFTER_DE.has(tok)) return false;
  return !SPEECH_AFTER_Y.test(text.slice(at + tok.length, at + tok.length + 16));
}

/** End of "De" and a place's noun at `start` ("De Dam", "De Kuip"), or -1 (see PLACE_NOUNS_AFTER_DE). */
function articleAndPlaceEnd(text: string, start: number): number {
  if (!text.startsWith('De', start) || (text.charCodeAt(start + 2) !== 32 && text.charCodeAt(start + 2) !== 0xa0)) return -1;
  const tok = tokenAt(text, start + 3);
  return tok !== null && placeAfterArticle(text, start + 3, tok) ? start + 3 + tok.length : -1;
}

// The endings of Dutch nouns for bodies, papers, banks, clubs and a contract's parties.
const DUTCH_BODY_NOUN_END =
  /(?:dienst|gever|nemer|ier|tie|ente|raaf|aard|ander|krant|dent|bank|schap|heid|ing|teit|erij|raad|huis|kamer|partij|bond|club|school|markt|winkel|groep|unie|tijd|post|rechtbank|regering|overheid)$/u;

function particleName(text: string, start: number): number {
  LEAD_PARTICLE_Y.lastIndex = start;
  const m = LEAD_PARTICLE_Y.exec(text);
  if (!m) return -1;
  const particle = m[0].trimEnd();
  const at = LEAD_PARTICLE_Y.lastIndex;
  const tok = tokenAt(text, at);
  if (!tok || isNonNameWord(tok) || tok === tok.toUpperCase() || MAKERS.has(tok)) return -1;
  const end = at + tok.length;
  // "De la Cruz", "Van der Meulen", "Von der Leyen": a particle of two words only ever leads a name,
  // and so does its Flemish one-word spelling ("Vanden Bossche").
  // Not "Van 't", which also leads the names of inns and farms ("bij Van 't Spit"): it asks what "Van" asks.
  const twoWords = particle.includes(' ') && !particle.endsWith('t');
  if (isKnownLastName(tok) || twoWords || IRISH_LEAD.has(particle) || FUSED_PARTICLES.has(particle)) return end;
  if (WEAK_PARTICLES.has(particle) && !particle.includes(' ')) return -1;
  // "De Belastingdienst heeft", "De Politie zei", "De Telegraaf schreef": the article before a body, a
  // paper or a party by the ending of its noun, not a surname the lists do not know (QA).
  if (particle === 'De' && DUTCH_BODY_NOUN_END.test(tok)) return -1;
  if (VERB_AFTER.test(text.slice(end, end + 16))) return end;
  if (IS_BEFORE.test(text.slice(Math.max(0, start - 8), start))) return end;
  return -1;
}

// Chat written in lower case ("weet iemand of thijs visser er is", "kai-uwe von der heide", "hi im
// ryan o'connor": an Irish "o'" leads the surname, and "ryan" alone was taken after "i'm"): a
// known first name and a known surname, both in lower case, maybe with particles between. A short
// message is read whole when one of its sentences starts in lower case ("Top! kan jan smit
// morgen?"); in a longer text only lines written in lower case are. Reading every word pair of
// every text cost 20 % of the speed on chat prompts and 80 % on long documents.
const LOWER_WORD = '\\p{Ll}{2,20}(?:-\\p{Ll}{2,20})?';
const LOWER_PAIR = new RegExp(
  `(?<![\\p{L}\\p{N}'’@._-])(${LOWER_WORD})[ \\u00a0]{1,3}((?:(?:van der|van den|van de|van ['’]t|von der|de la|van|von|de|der|den|ter|ten|zu|le|la|du|da|di|del)[ \\u00a0]{1,3})?)((?:o['’])?${LOWER_WORD})(?![\\p{L}\\p{N}'’@_-])`,
  'gu',
);
const SHORT_TEXT = 1000;
const AMBIGUOUS_LOWER = new Set([...AMBIGUOUS].map((n) => n.toLowerCase()));
// Written in lower case and alone, more first names are words: "jack up the price", "rob a bank".
const AMBIGUOUS_LOWER_ALONE = new Set([
  ...AMBIGUOUS_LOWER,
  ...'jack bob rob nick don pat sam sue sally gene guy ken kim lee norm rod tim tom ted sandy barry bobby chip cliff gale gill hank jimmy jo mat matt moe penny peg sol stan rusty tony win'.split(' '),
  // The label of an identifier: "my nino is jk482917b" (the UK National Insurance number).
  'nino',
]);

/** Whether a first name is also a common word, place or brand ("Summer", "Grace", "Roma"): never enough alone. */
export function isAmbiguousFirstName(name: string): boolean {
  return AMBIGUOUS.has(name);
}

/**
 * Whether a one-word name is also a common word ("Mark", "will", "jack"): found once by a cue
 * ("Hi Mark"), it does not make the word a name elsewhere in the text ("Mark the date").
 */
export function nameIsAlsoAWord(name: string): boolean {
  return AMBIGUOUS_LOWER_ALONE.has(name.toLowerCase()) || isNonNameWord(name);
}

// Surnames that are also words, for where one recurs alone in the text that gave the full name
// ("Mijn naam is Anouk Groen. Groen is ook de kleur van de hoop", "Ich heiße Anna Koch. Wir suchen
// Koch und Kellner"). German writes these nouns with a capital anywhere: alone they are the person
// only before a verb of speech or action ("Koch hat angerufen"). Dutch, English and French write
// the colour or adjective with a capital only at a sentence's start: elsewhere a capital says the
// name. The commonest Dutch surnames (Bakker, Visser, Smit, de Boer) are left out: alone they are
// far more often the person than the trade.
const SURNAME_NOUNS = new Set(
  `Koch Bauer Richter Fischer Schneider Weber Vogel Wolf Fuchs Meister Schäfer Jäger Müller Hahn Kaiser König Graf Keller
  Kellner Lang Lange Klein Groß Gross Braun Schwarz Weiß Weiss Jung Neumann Zimmermann Schreiber Krämer Förster Schmied`.split(/\s+/),
);
const SURNAME_ADJECTIVES = new Set(
  `Groen Wit Zwart Rood Bruin Grijs Blauw Geel Groot Klein Lang Jong Oud Brown White Black Green Young Grey Gray King Baker
  Cook Hunter Fisher Bird Fox Stone Hill Wood Rose Blanc Petit Grand Legrand`.split(/\s+/),
);

/**
 * Whether the surname alone at [start, end), part of a full name found in the text, is used there
 * as the name (see SURNAME_NOUNS); true for every surname that is no such word.
 */
export function surnameAloneIsName(text: string, start: number, end: number): boolean {
  const word = text.slice(start, end);
  const noun = SURNAME_NOUNS.has(word);
  if (!noun && !SURNAME_ADJECTIVES.has(word)) return true;
  if (VERB_AFTER.test(text.slice(end, end + 16))) return true;
  if (noun) return false;
  return start > 0 && !SENTENCE_START.test(text.slice(Math.max(0, start - 4), start));
}

/**
 * Whether a handle of one word ("@wouter", "@Femke") is a first name: one the lists know that is no
 * word, programming language or assistant ("@mark", "@ray", "@julia", "@claude" stay).
 */
export function isFirstNameHandle(word: string): boolean {
  const lower = word.toLowerCase();
  return lower.length >= 3 && isLowerCaseFirstName(lower, true) && !LANGUAGES_NAMED_LIKE_PEOPLE.has(lower) && !ASSISTANT_NAMES.has(lower);
}

/**
 * Whether a first name masked in a full name of the text may be looked for alone in that text
 * ("Joost Vermeulen belt terug … - Joost: offerte opvragen"): a first name the lists know that is
 * not also a word, a town, a programming language or an assistant ("Mark", "Florence", "Julia",
 * "Claude" alone are as often those).
 */
export function firstNameStandsAlone(word: string): boolean {
  if (word.length < 3 || word === word.toUpperCase() || !knownFirst(word) || nameIsAlsoAWord(word) || AMBIGUOUS.has(word)) return false;
  return !TOWN_NAMES.has(word) && !LANGUAGES_NAMED_LIKE_PEOPLE.has(word.toLowerCase()) && !ASSISTANT_NAMES.has(word.toLowerCase()) && !isKnownLastName(word);
}

/**
 * Whether a lower-case word is a known first name ("thijs", "kai-uwe") that is not also a common
 * word; `alone` (no surname after it) leaves out more of them ("jack up the price").
 */
function isLowerCaseFirstName(word: string, alone = false): boolean {
  const dash = word.indexOf('-');
  const known = isKnownFirstNameLower(word) || (dash > 0 && isKnownFirstNameLower(word.slice(0, dash)));
  return known && !(alone ? AMBIGUOUS_LOWER_ALONE : AMBIGUOUS_LOWER).has(word) && !isNonNameWord(word);
}

function isLowerCaseSurname(word: string): boolean {
  // "o'connor", "o’brien": the lists write the apostrophe straight.
  if (word.charCodeAt(1) === 0x2019) word = `${word[0]}'${word.slice(2)}`;
  const dash = word.indexOf('-');
  const known = isKnownLastNameLower(word) || (dash > 0 && isKnownLastNameLower(word.slice(0, dash)) && isKnownLastNameLower(word.slice(dash + 1)));
  return known && !isNonNameWord(word) && !AMBIGUOUS_LOWER.has(word);
}

function findLowerCaseNames(text: string, scan: TextScan, take: (start: number, end: number) => void): void {
  if (text.length <= SHORT_TEXT) {
    if (aSentenceStartsInLowerCase(text)) findLowerCasePairs(text, 0, text.length, take);
    return;
  }
  const caps = scan.capAt;
  let c = 0;
  for (let lineStart = 0; lineStart < text.length; ) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    let capitals = 0;
    while (c < caps.length && caps[c]! < lineEnd) {
      c++;
      capitals++;
    }
    const length = lineEnd - lineStart;
    if (length >= 5 && capitals <= 1 + length / LOWER_CASE_LINE && startsInLowerCase(text, lineStart, lineEnd)) {
      findLowerCasePairs(text, lineStart, lineEnd, take);
    }
    lineStart = lineEnd + 1;
  }
}

// A title, then a surname in lower case ("tell mr patel", "heb net dhr jansen gesproken",
// "mevrouw de jong", "frau schneider", "j'ai appelé m. dupont"): the title is cue enough in text
// written like chat (decision 0011: a short text with a sentence that starts in lower case, or a
// line of a long one that does). In other text a capitalised title before a lower-case word is a
// noun and a verb ("Meine Frau hat gestern angerufen", "Mevrouw heeft gebeld", "Monsieur est
// parti"). The surname may carry particles; a word that is no name ("mr and mrs") is not taken.
const TITLES = ['mr', 'mrs', 'ms', 'mx', 'dhr', 'mevr', 'mevrouw', 'meneer', 'mijnheer', 'frau', 'herr', 'herrn', 'mme', 'mlle', 'madame', 'monsieur', 'dña', 'doña'];
const TITLED_SURNAME = `[ \u00a0]{1,3}((?:(?:van|de|den|der|ter|te|von|zu|du|le|la)[ \u00a0]){0,3}(?:o['’]|d['’])?\\p{Ll}[\\p{Ll}'’-]{1,30})(?![\\p{L}\\p{N}])`;
const TITLED_LOWER = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:(?:${TITLES.flatMap((t) => [t, t[0]!.toUpperCase() + t.slice(1)]).join('|')})\\.?|(?<!\\d[ \u00a0]?)[mM]\\.)${TITLED_SURNAME}`,
  'gu',
);
// Spanish "Sr."/"Sra."/"Srta." apart: in the one alternation, every "s" of a text (a common letter in
// every language read) started a try of the whole, which made it three to eight times slower.
const TITLED_LOWER_SR = new RegExp(`(?<![\\p{L}\\p{N}])[sS]r(?:ta?|a)?\\.?${TITLED_SURNAME}`, 'gu');

function execAll(pattern: RegExp, text: string): RegExpExecArray[] {
  const found: RegExpExecArray[] = [];
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) found.push(m);
  return found;
}

function findTitledLowerCase(text: string, take: (start: number, end: number) => void): void {
  const short = text.length <= SHORT_TEXT;
  let chatStyle: boolean | undefined;
  // The line of the last match in a long text, and whether it starts in lower case: found once
  // per line, so many titles on one long line cost no more than the line.
  let lineStart = 0;
  let lineEnd = -1;
  let lineInLowerCase = false;
  const found = execAll(TITLED_LOWER, text);
  // Most texts hold no "sr" at all: a plain search says so faster than the pattern.
  if (text.includes('sr') || text.includes('Sr')) found.push(...execAll(TITLED_LOWER_SR, text));
  found.sort((a, b) => a.index - b.index);
  for (const m of found) {
    let chat: boolean;
    if (short) {
      chatStyle ??= aSentenceStartsInLowerCase(text);
      chat = chatStyle;
    } else {
      if (m.index >= lineEnd) {
        lineStart = text.lastIndexOf('\n', m.index) + 1;
        lineEnd = text.indexOf('\n', m.index);
        if (lineEnd < 0) lineEnd = text.length;
        lineInLowerCase = startsInLowerCase(text, lineStart, lineEnd);
      }
      chat = lineInLowerCase;
    }
    const name = m[1]!;
    const words = name.split(/[ \u00a0]/);
    const surname = words.at(-1)!.replace(/^(?:o|d)['’]/, '');
    // Particles lead the surname ("de jong"); any other word that is no name ends the reading ("mr and").
    if (isNonNameWord(surname) || (words.length === 1 && isNonNameWord(words[0]!))) continue;
    // In capitalised text only a surname the lists know, after Dutch or German particles, and not
    // after an article or a possessive ("Herr mueller hat angerufen", "Mevrouw de vries belde";
    // but "Meine Frau weiss es", "Monsieur le maire", "Der Herr hat Recht") (QA).
    // "Sr." is English "senior" too ("John Smith Sr. called"): the strict reading everywhere.
    if ((!chat || SR_Y.test(m[0])) && !titledSurnameInCapitalisedText(text, m.index, words, surname)) continue;
    take(m.index + m[0].length - name.length, m.index + m[0].length);
  }
}

const ARTICLE_OR_POSSESSIVE_BEFORE_TITLE = new Set(
  `meine mein seine sein ihre ihr eure unsere die der eine ein diese dieser jede mijn zijn haar onze uw je jouw de het een die deze elke
  ma mon sa son ta ton votre notre la le une cette chaque my his her your our their the a an this that every`.split(/\s+/),
);
const SR_Y = /^(?:sr|sra|srta)\./iu;
const STRICT_PARTICLES = new Set(['van', 'de', 'den', 'der', 'ter', 'te', 'von', 'zu']);

/** Whether a lower-case word is a surname the lists know, also as German writes umlauts without them ("mueller"). */
function knownLowerSurname(word: string): boolean {
  if (isKnownLastNameLower(word)) return true;
  if (!/[aou]e/.test(word)) return false;
  return isKnownLastNameLower(word.replace(/ae/g, 'ä').replace(/oe/g, 'ö').replace(/ue/g, 'ü'));
}

/** Whether a title at `at` and the lower-case words after it name someone in capitalised text (see findTitledLowerCase). */
function titledSurnameInCapitalisedText(text: string, at: number, words: string[], surname: string): boolean {
  for (let k = 0; k < words.length - 1; k++) if (!STRICT_PARTICLES.has(words[k]!)) return false;
  if (!knownLowerSurname(surname) || isFunctionWord(surname) || SPEECH_VERBS.has(surname) || AMBIGUOUS_LOWER.has(surname)) return false;
  const cap = surname[0]!.toUpperCase() + surname.slice(1);
  if (SURNAME_NOUNS.has(cap) || SURNAME_ADJECTIVES.has(cap)) return false;
  return !ARTICLE_OR_POSSESSIVE_BEFORE_TITLE.has(wordBefore(text, at).word);
}

// A sentence that gives someone's name, then the name in lower case ("his name is graham
// whitfield", "mijn naam is jan klaassenbroek", "er heißt lukas", "elle s'appelle camille"): the
// sentence says a name follows, so in any text a known first name there is one, and the one
// word after it that is no common word is its surname, known to the lists or not. Without a known
// first name the words are as often no name ("my name is not important", "his name is on the list").
const NAME_GIVING = [
  ...['my', 'his', 'her', 'their'].map((p) => `${p} name is`),
  ...['mijn', 'zijn', 'haar', 'hun'].map((p) => `${p} naam is`),
  ...['mein', 'sein', 'ihr'].map((p) => `${p} name ist`),
  ...['mon', 'son'].map((p) => `${p} nom est`),
  'ik heet', 'hij heet', 'zij heet', 'ze heet', 'ich heiße', 'ich heisse', 'er heißt', 'sie heißt', 'er heisst', 'sie heisst',
  "je m'appelle", "il s'appelle", "elle s'appelle", 'je m’appelle', 'il s’appelle', 'elle s’appelle',
  // Spanish, Italian, Polish and Portuguese: "se llama lucía martín", "ma na imię katarzyna" (QA).
  'me llamo', 'se llama', 'mi nombre es', 'su nombre es', 'mi chiamo', 'si chiama', 'il mio nome è', 'nazywam się', 'nazywa się',
  'mam na imię', 'ma na imię', 'me chamo', 'se chama', 'chamo-me', 'meu nome é',
];
// "The customer's name is jessica thompson", "the patient's name is …", "your name is …": the
// name-giving sentence with any possessive before "name is" (QA: only my/his/her/their were read,
// and a lower-case name in capitalised text went out in clear). The lookbehind is bounded.
const POSSESSIVE_NAME_IS = "(?<=(?:['’]s|[Tt]he|[Yy]our|[Oo]ur|[Ww]hose)[ \\u00a0])name is";
const NAMED_LOWER = new RegExp(
  `(?<![\\p{L}])(?:${NAME_GIVING.flatMap((c) => [c, c[0]!.toUpperCase() + c.slice(1)]).join('|')}|${POSSESSIVE_NAME_IS})[ \\u00a0]{1,3}` +
    `(\\p{Ll}[\\p{Ll}'’-]{1,30})(?:[ \\u00a0]{1,3}((?:(?:van|de|den|der|ter|te|von|zu|du|le|la)[ \\u00a0]){0,3}\\p{Ll}[\\p{Ll}'’-]{1,30}))?(?![\\p{L}\\p{N}])`,
  'dgu',
);
// Chat's words that end a sentence rather than name anyone: "her name is sarah btw".
const CHAT_TAIL = new Set(['btw', 'lol', 'haha', 'pls', 'plz', 'please', 'svp', 'stp', 'aub', 'bitte', 'ok', 'okay', 'thx', 'thanks', 'merci', 'danke', 'bedankt']);

function nameWordInLowerCase(word: string): boolean {
  return !isNonNameWord(word) && !isFunctionWord(word) && !CHAT_TAIL.has(word) && !SPEECH_VERBS.has(word);
}

// Tried only at the word starts the pre-scan marks for it: run over a whole long document, the
// regex cost a third of the firewall's time on prose.
const NAMED_LOWER_BIT = registerCue(body(NAMED_LOWER));
const NAMED_LOWER_STICKY = new RegExp(body(NAMED_LOWER), 'duy');

const BITS_WITH_NAMED_LOWER = [...BITS, NAMED_LOWER_BIT];

/** `positions`: the word starts the pre-scan marked for NAMED_LOWER (see cuePositions). */
function findNamedLowerCase(text: string, scan: TextScan, positions: number[], take: (start: number, end: number) => void): void {
  if (positions.length === 0) return;
  const matches = new Matcher(NAMED_LOWER, scan, positions, { sparse: ALWAYS_STICKY, sticky: NAMED_LOWER_STICKY });
  for (let m = matches.exec(); m; m = matches.exec()) {
    const [firstStart, firstEnd] = m.indices![1]!;
    if (!isKnownFirstNameLower(m[1]!) || !nameWordInLowerCase(m[1]!)) continue;
    const surname = m[2]?.split(/[ \u00a0]/).at(-1);
    take(firstStart, surname !== undefined && nameWordInLowerCase(surname) ? m.indices![2]![1] : firstEnd);
  }
}

// A self-introduction or a sign-off, then a first name in lower case, as chat types both ("hi, i'm
// emma", "hoi! ik ben sanne", "groetjes, sanne", "hey, it's mike here", "lg anna", "bisous camille"):
// the capitalised forms were masked (WEAK_CUE) and these went out in clear. What follows these cues
// is as often how or what one is ("i'm sure", "ik ben moe", "ich bin müde", "je suis content") or
// whom one thanks ("thanks, team", "cheers, mate"), so the word must be a first name the lists know
// as a whole ("mark-ing" is no name), that is not also a word anywhere (AMBIGUOUS and the common
// words: "i'm will", "it's may here", and "ik ben mark", as "Ik ben Mark" capitalised is not taken
// either: lower case is no stronger evidence than a capital), nor a word of the cue's own language
// that the lists hold as a name ("je suis ravi", "ik ben oma", "ich bin rein"; "i'm ravi" is a name).
// "it's" counts only with "here" after the name ("it's mike here"): "it's fine", "it's jade" are as
// often things. "ik heet", "my name is", "ich heiße", "je m'appelle" are NAMED_LOWER's.
const INTRODUCTION_CUES: Record<Language, string[]> = {
  en: ["i['’]m", 'i am', 'this is', "it['’]s", 'cheers', 'thanks', 'thank you'],
  nl: ['ik ben', 'dit is', 'groetjes', 'groeten', 'groet', 'gr\\.'],
  de: ['ich bin', 'lg', 'liebe grüße', 'viele grüße'],
  fr: ['je suis', "moi c['’]est", 'bisous', 'bises'],
};
// Words of one language that the name lists also hold as first names, and that follow these cues.
const WORDS_NAMED_LIKE_PEOPLE: Record<Language, ReadonlySet<string>> = {
  en: new Set(['alone', 'bud', 'earnest', 'constant', 'modest', 'sincere', 'idea']),
  nl: new Set(['oma', 'oke', 'puk']),
  de: new Set(['oma', 'rein', 'allen']),
  fr: new Set(['marie', 'ravi', 'ravie', 'beau', 'belle', 'vive', 'mille', 'mamie', 'brune', 'malin', 'jolie', 'douce', 'franc', 'aimé', 'aimée', 'désiré', 'fidèle', 'constant', 'clément', 'aimable', 'parfait', 'innocent', 'innocente']),
};
const CUE_LANGUAGE = new Map<string, Language>();
for (const [language, cues] of Object.entries(INTRODUCTION_CUES) as Array<[Language, string[]]>) {
  for (const c of cues) CUE_LANGUAGE.set(c.replace(/\[['’]+\]/u, "'").replace('\\.', '.'), language);
}
// Case-insensitive for the cue ("I'm emma"); the name's case is checked in code (a capitalised one
// is WEAK_CUE's). The spaces and the punctuation between are bounded: no run of them backtracks.
const INTRODUCED_LOWER = new RegExp(
  `(?<![\\p{L}])(${Object.values(INTRODUCTION_CUES).flat().join('|')})[,!:]?(?:[ \\u00a0\\t]{1,3}|[ \\t]{0,3}\\r?\\n[ \\t]{0,3})` +
    `(\\p{Ll}{2,20}(?:-\\p{Ll}{2,20})?)(?![\\p{L}\\p{N}@_-])([ \\u00a0]{1,3}here(?![\\p{L}]))?`,
  'giu',
);
const INTRODUCED_LOWER_BIT = registerCue(body(INTRODUCED_LOWER));
const INTRODUCED_LOWER_STICKY = new RegExp(body(INTRODUCED_LOWER), 'iuy');

/** Whether a lower-case word after an introduction or sign-off of `language` is a first name (see INTRODUCED_LOWER). */
function introducedFirstName(word: string, language: Language): boolean {
  const dash = word.indexOf('-');
  // A compound only of two names ("anne-sophie"), not a name and a suffix ("mark-ing").
  const known = dash < 0 ? isKnownFirstNameLower(word) : isKnownFirstNameLower(word.slice(0, dash)) && isKnownFirstNameLower(word.slice(dash + 1));
  if (!known || AMBIGUOUS_LOWER_ALONE.has(word) || isNonNameWord(word) || isFunctionWord(word)) return false;
  if (WORDS_NAMED_LIKE_PEOPLE[language].has(word) || LANGUAGES_NAMED_LIKE_PEOPLE.has(word) || ASSISTANT_NAMES.has(word)) return false;
  return !CHAT_TAIL.has(word) && !SPEECH_VERBS.has(word);
}

/** `positions`: the word starts the pre-scan marked for INTRODUCED_LOWER. */
function findIntroducedLowerCase(text: string, scan: TextScan, positions: number[], take: (start: number, end: number) => void): void {
  if (positions.length === 0) return;
  const matches = new Matcher(INTRODUCED_LOWER, scan, positions, { sparse: ALWAYS_STICKY, sticky: INTRODUCED_LOWER_STICKY });
  for (let m = matches.exec(); m; m = matches.exec()) {
    const word = m[2]!;
    if (word !== word.toLowerCase()) continue;
    const cueWord = m[1]!.toLowerCase().replace('’', "'");
    if (cueWord === "it's" && m[3] === undefined) continue;
    const language = CUE_LANGUAGE.get(cueWord);
    if (language === undefined || !introducedFirstName(word, language)) continue;
    const start = m.index + m[0].length - (m[3]?.length ?? 0) - word.length;
    take(start, start + word.length);
    // The name may be a cue's word itself ("thanks, bisous"): read on right after the cue.
    matches.lastIndex = start;
  }
}

/**
 * Whether a sentence of a short text starts in lower case ("hey is thijs er?", "Top. kan jan smit
 * morgen?"): chat style, where a name may be written in lower case too. Sentences start at the
 * text's start, after a line break, and after '.', '!' or '?' and a space ("e.g. the" does not).
 */
function aSentenceStartsInLowerCase(text: string): boolean {
  let atStart = true;
  let stop = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 || c === 33 || c === 63) {
      stop = true;
      continue;
    }
    if (c === 32 || c === 9 || c === 10) {
      if (stop || c === 10) atStart = true;
      stop = false;
      continue;
    }
    stop = false;
    if (!atStart) continue;
    if (c >= 97 && c <= 122) return true;
    if ((c >= 65 && c <= 90) || (c > 127 && isLetterCode(c))) {
      if (c > 127 && text[i] !== text[i]!.toUpperCase()) return true;
      atStart = false;
    }
  }
  return false;
}

/**
 * In a long text, a line is read for lower-case names when it starts in lower case and has at
 * most one capitalised word, plus one per this many characters ("I", a brand): chat ("hey is thijs
 * er? ik wacht"), not prose, whose lines start with a capital and have one every 30 to 50.
 */
const LOWER_CASE_LINE = 200;

/** Whether the first letter of the line (after at most 16 other characters: "[10:32] ", "- ") is lower case. */
function startsInLowerCase(text: string, start: number, end: number): boolean {
  const stop = Math.min(end, start + 16);
  for (let i = start; i < stop; i++) {
    const c = text.charCodeAt(i);
    if (c >= 97 && c <= 122) return true;
    if (c >= 65 && c <= 90) return false;
    if (c > 127 && isLetterCode(c)) return text[i] !== text[i]!.toUpperCase();
  }
  return false;
}

function findLowerCasePairs(text: string, from: number, to: number, take: (start: number, end: number) => void): void {
  // The line alone: a global regex run from the line's start would search on past its end.
  const line = from === 0 && to === text.length ? text : text.slice(from, to);
  LOWER_PAIR.lastIndex = 0;
  for (let m = LOWER_PAIR.exec(line); m; m = LOWER_PAIR.exec(line)) {
    if (isLowerCaseFirstName(m[1]!) && isLowerCaseSurname(m[3]!)) {
      // "maría garcía lópez": a second surname the lists know (QA: "lópez" was left in clear).
      const end = lowerSecondSurnameEnd(line, m.index + m[0].length);
      take(from + m.index, from + end);
      LOWER_PAIR.lastIndex = end;
      continue;
    }
    // Try again from the second word: it may start the name ("met ruben mulder").
    LOWER_PAIR.lastIndex = m.index + m[1]!.length + 1;
  }
  // A lone first name where chat names people: after a preposition, a greeting, a relation or a
  // conjunction ("voor femke", "hi tom", "my brother declan", "namens daan en yusuf"), or before a
  // verb of speech ("uwe meinte", "océane a déjà").
  LOWER_CUED.lastIndex = 0;
  for (let m = LOWER_CUED.exec(line); m; m = LOWER_CUED.exec(line)) {
    const afterCue = m[1] !== undefined;
    const name = afterCue ? m[1]! : m[2]!;
    const at = afterCue ? m.index + m[0].length - name.length : m.index;
    // After a greeting even a first name that is also a word is one: "hi tom", "hey grace".
    const greeted = afterCue && LOWER_GREETINGS.has(m[0].slice(0, m[0].search(/[ \u00a0]/)));
    const named = isLowerCaseFirstName(name, true) || (greeted && isKnownFirstNameLower(name) && !isNonNameWord(name));
    if (named && !programmingLanguageHere(line, at, at + name.length, name)) take(from + at, from + at + name.length);
    // The word after a cue may be a cue itself ("voor en na"): read on from it.
    if (afterCue) LOWER_CUED.lastIndex = at;
  }
  // A compound of two first names stands for a person on its own: "de schicht von marie-luise".
  if (line.indexOf('-') < 0) return;
  LOWER_COMPOUND.lastIndex = 0;
  for (let m = LOWER_COMPOUND.exec(line); m; m = LOWER_COMPOUND.exec(line)) {
    const dash = m[0].indexOf('-');
    if (isLowerCaseFirstName(m[0].slice(0, dash)) && isLowerCaseFirstName(m[0].slice(dash + 1))) take(from + m.index, from + m.index + m[0].length);
  }
}
const LOWER_WORD_AFTER_Y = /[ \u00a0](\p{Ll}{2,20})(?![\p{L}\p{N}'’@_-])/uy;

/** End of a lower-case second surname the lists know right after `end` ("garcía| lópez"), or `end`. */
function lowerSecondSurnameEnd(text: string, end: number): number {
  LOWER_WORD_AFTER_Y.lastIndex = end;
  const m = LOWER_WORD_AFTER_Y.exec(text);
  return m !== null && isLowerCaseSurname(m[1]!) && !isFunctionWord(m[1]!) && !SPEECH_VERBS.has(m[1]!) ? LOWER_WORD_AFTER_Y.lastIndex : end;
}

const LOWER_CUE =
  "voor|met|namens|aan|bij|tegen|en|hoi|hey|hi|hallo|dag|to|with|for|from|and|cc|ping|dear|hello|tell|ask|so|maybe|pour|avec|chez|à|et|salut|coucou|an|mit|für|bei|von|und|frag|sag|moin|" +
  "man|vrouw|zoon|dochter|broer|zus|moeder|vader|schoonmoeder|schoonvader|buurman|buurvrouw|collega|oma|opa|tante|oom|vriend|vriendin|" +
  "husband|wife|son|daughter|brother|sister|mum|mom|dad|nan|gran|grandma|grandpa|aunt|uncle|colleague|friend|boss|neighbour|neighbor|" +
  "mari|femme|fils|fille|frère|soeur|sœur|mère|père|voisin|voisine|collègue|copain|copine|ami|amie|oncle|cousin|cousine|" +
  "mann|frau|sohn|tochter|bruder|schwester|mutter|vater|nachbar|nachbarin|kollege|kollegin|freund|freundin|chef|chefin|onkel";
const LOWER_GREETINGS = new Set(['hoi', 'hey', 'hi', 'hallo', 'hello', 'dear', 'salut', 'coucou', 'moin']);
const LOWER_SPEECH = 'zei|zegt|vroeg|vraagt|wil|heeft|had|komt|belde|said|says|asked|wants|wrote|called|is|was|a|dit|demande|veut|est|meinte|sagt|sagte|fragt|hat|hatte|will|ist|war|kommt';
const SPEECH_VERBS = new Set(LOWER_SPEECH.split('|'));
const LOWER_CUED = new RegExp(
  `(?<![\\p{L}])(?:${LOWER_CUE})[ \u00a0]{1,3}(${LOWER_WORD})(?![\\p{L}\\p{N}'’@_-])|(?<![\\p{L}\\p{N}'’@._-])(${LOWER_WORD})[ \u00a0]{1,3}(?:${LOWER_SPEECH})(?![\\p{L}])`,
  'gu',
);
const LOWER_COMPOUND = /(?<![\p{L}\p{N}'’@._-])\p{Ll}{2,20}-\p{Ll}{2,20}(?![\p{L}\p{N}'’@_-])/gu;

// A role word or a verb of contact, then a first name and a surname in lower case, in any text
// ("employee tom baker was late", "Mitarbeiter lukas hoffmann krankgemeldet", "please add sarah
// connor to the channel", "can u call mark de jong back?", "medewerker kees van dijk"): what comes
// before says a person follows, so the pair is read outside chat-style text too, and a first name
// that is also a word ("tom", "mark") is read before a surname the lists know or one led by a
// particle. Without such a surname the words stay: "call mark as done", "add will power", "ask tom
// about it", "employee of the month" (a lone first name there is the chat rules' business). The
// surname may be a first name the lists know after a first name that is no word ("sarah connor").
// A word of politeness may stand between ("ruf bitte lukas hoffmann an", "bel even kees van dijk").
// Tried only at the word starts the pre-scan marks for it (a bit of its own): no whole-text search.
const ROLE_WORDS_LOWER = (
  'employee|colleague|coworker|co-worker|customer|client|patient|tenant|student|manager|intern|trainee|candidate|applicant|' +
  'medewerker|medewerkster|werknemer|collega|klant|cliënt|patiënt|huurder|leerling|stagiair|stagiaire|sollicitant|' +
  'mitarbeiter|mitarbeiterin|kollege|kollegin|kunde|kundin|patientin|mieter|mieterin|schüler|schülerin|studentin|bewerber|bewerberin|azubi|' +
  'employé|employée|salarié|salariée|collègue|cliente|patiente|locataire|élève|étudiant|étudiante|candidat'
).split('|');
const CONTACT_VERBS_LOWER = (
  'call|ring|phone|email|e-mail|mail|text|message|add|invite|ask|tell|ping|contact|cc|' +
  'bel|app|vraag|mail|contacteer|' +
  'ruf|schreib|frag|kontaktiere|' +
  'appelle|appelez|contacte|contactez'
).split('|');
const PAIR_PARTICLES = "(?:van der|van den|van de|van ['’]t|von der|de la|van|von|de|der|den|ter|ten|zu|le|la|du|da|di|del)";
const CUED_PAIR = new RegExp(
  `(?<![\\p{L}])(${[...new Set([...ROLE_WORDS_LOWER, ...CONTACT_VERBS_LOWER])].flatMap((w) => [w, w[0]!.toUpperCase() + w.slice(1)]).join('|')}):?[ \\u00a0]{1,3}(?:(?:bitte|mal|doch|even|eens|ff|nog|please|pls|svp|stp)[ \\u00a0]{1,3})?` +
    `(${LOWER_WORD})[ \\u00a0]{1,3}(${PAIR_PARTICLES}[ \\u00a0]{1,3})?((?:o['’])?${LOWER_WORD})(?![\\p{L}\\p{N}'’@_-])`,
  'dgu',
);
const CUED_PAIR_BIT = registerCue(body(CUED_PAIR));
const CUED_PAIR_STICKY = new RegExp(body(CUED_PAIR), 'duy');
const ALL_CUE_BITS = [...BITS_WITH_NAMED_LOWER, INTRODUCED_LOWER_BIT, CUED_PAIR_BIT];

/** Whether a lower-case word after a role or contact cue may be a first name (see CUED_PAIR). */
function cuedFirstName(word: string): boolean {
  const dash = word.indexOf('-');
  const known = isKnownFirstNameLower(word) || (dash > 0 && isKnownFirstNameLower(word.slice(0, dash)) && isKnownFirstNameLower(word.slice(dash + 1)));
  if (!known || isNonNameWord(word) || isFunctionWord(word) || CHAT_TAIL.has(word) || SPEECH_VERBS.has(word)) return false;
  return !LANGUAGES_NAMED_LIKE_PEOPLE.has(word) && !ASSISTANT_NAMES.has(word);
}

/** Whether a lower-case word is a surname the lists know and no word of the text's grammar. */
function cuedKnownSurname(word: string): boolean {
  if (word.charCodeAt(1) === 0x2019) word = `${word[0]}'${word.slice(2)}`;
  const dash = word.indexOf('-');
  const known = knownLowerSurname(word) || (dash > 0 && knownLowerSurname(word.slice(0, dash)) && knownLowerSurname(word.slice(dash + 1)));
  return known && !isNonNameWord(word) && !isFunctionWord(word) && !CHAT_TAIL.has(word) && !SPEECH_VERBS.has(word);
}

// A line of a WhatsApp export, Android's shape: a date, a comma, a time, " - ", the contact's name
// and ": " ("26/11/2024, 21:04 - Sophie: ja net", "11/26/24, 9:04 PM - Mark de Vries: ok"). The
// name at a sentence's start before a colon was no name to the lone-name rule, so a first name
// alone went out in clear, on one line or many; the shape says it is the contact's name, which
// the phone's owner saved, so it is masked whatever its words (not a number: the phone recognizer's;
// not a word in capitals, a log's level). The comma after the date is WhatsApp's: logs write none.
// Found from each " - " whose line starts at most WHATSAPP_PREFIX characters before it, read sticky
// from the line's start with bounded runs only: linear in the text.
const WHATSAPP_LINE_Y =
  /[\u200e\u200f]?\[?\d{1,4}[./-]\d{1,2}[./-]\d{1,4},[ \u00a0]\d{1,2}[:.]\d{2}(?:[:.]\d{2})?(?:[ \u00a0\u202f]?[AaPp]\.?[Mm]\.?)?\]?[ \u00a0]-[ \u00a0]([\p{L}][\p{L}\p{M}.'’ -]{0,39}?):[ \u00a0]/uy;
const WHATSAPP_PREFIX = 32;

function findWhatsAppSpeakers(text: string, take: (start: number, end: number) => void): void {
  for (let at = text.indexOf(' - '); at >= 0; at = text.indexOf(' - ', at + 3)) {
    const c = text.charCodeAt(at - 1);
    // The time's last digit, or its "PM"/"p.m.".
    if (!((c >= 48 && c <= 57) || c === 77 || c === 109 || c === 46)) continue;
    let lineStart = at;
    const stop = Math.max(0, at - WHATSAPP_PREFIX);
    while (lineStart > stop && text.charCodeAt(lineStart - 1) !== 10) lineStart--;
    if (lineStart > 0 && text.charCodeAt(lineStart - 1) !== 10) continue;
    WHATSAPP_LINE_Y.lastIndex = lineStart;
    const m = WHATSAPP_LINE_Y.exec(text);
    if (m === null) continue;
    const name = m[1]!.trimEnd();
    // "2024-11-26, 10:00 - INFO: started": a log's level, not a contact.
    if (name.split(' ').length > 5 || name === name.toUpperCase()) continue;
    const start = WHATSAPP_LINE_Y.lastIndex - 2 - m[1]!.length;
    take(start, start + name.length);
  }
}

/** `positions`: the word starts the pre-scan marked for CUED_PAIR. */
function findCuedLowerCasePairs(text: string, scan: TextScan, positions: number[], take: (start: number, end: number) => void): void {
  if (positions.length === 0) return;
  const matches = new Matcher(CUED_PAIR, scan, positions, { sparse: ALWAYS_STICKY, sticky: CUED_PAIR_STICKY });
  for (let m = matches.exec(); m; m = matches.exec()) {
    const [firstStart] = m.indices![2]!;
    // The word after the cue may be a cue itself ("call customer tom baker"): read on from it.
    matches.lastIndex = firstStart;
    const first = m[2]!;
    const surname = m[4]!;
    if (!cuedFirstName(first)) continue;
    const particled = m[3] !== undefined;
    let named = cuedKnownSurname(surname);
    // "sarah connor": a first name that is no word, and a first name the lists know as its surname.
    if (!named && !particled && !AMBIGUOUS_LOWER_ALONE.has(first) && isLowerCaseFirstName(surname, true) && !isFunctionWord(surname)) named = true;
    if (!named) continue;
    const end = lowerSecondSurnameEnd(text, m.index + m[0].length);
    take(firstStart, end);
    matches.lastIndex = end;
  }
}

// AI assistants and models named like people ("Claude", "Devin", "Jules", "Cody", and the names
// a user may write alone: "Gemini", "Mistral", "Copilot" …). Coding agents' system prompts speak of
// them on every turn ("You are Claude, an AI assistant", "the most capable Claude models", "the
// harness executes these, not Claude"): masked, the prompt lost what it is about, and a user's own
// Claude shared the placeholder. Such a name alone is the product where the text speaks of it as
// one: a product word right after it ("Claude models", "Claude Code", "Gemini 2.5", "Devin Pro"), or
// "you are X, a(n) … assistant/model/AI" ("I am X, an AI …": a person introduces oneself so too,
// so there "assistant" alone does not do). One such mention makes every lone X of that text the
// product: "not Claude" in the same system prompt. A first name and a surname ("Claude Dubois"), a
// strong cue or a title before it ("Je m'appelle Claude", "M. Claude") stay a person, and so does
// a greeting in a text that does not speak of the product ("Bonjour Claude,").
const ASSISTANT_NAMES = new Set(
  'claude codex chatgpt gemini gemma mistral mixtral llama copilot devin cody jules grok qwen deepseek alexa siri cortana bard'.split(' '),
);
// A version counts when written as one ("Gemini 2.5", "Llama-3", "Claude 5 family"): "Claude 2
// fois" is a person seen twice.
const PRODUCT_AFTER_Y =
  /(?:[ \u00a0-](?:\d{1,2}(?:\.\d{1,2})?[ \u00a0])?(?:models?|Code|code|family|Opus|Sonnet|Haiku|Instant|Desktop|API|SDK|CLI|[Aa]gents?|[Aa]ssistant|[Cc]hat|Pro|Ultra|Flash|Nano|Enterprise|Large|Guard|Studio)(?![\p{L}])|[ \u00a0-]\d{1,2}\.\d{1,2}(?![\p{L}\p{N}])|-\d{1,2}(?![\p{L}\p{N}]))/uy;
// The self-description that follows "you are X" / "I am X" in a system prompt, up to its sentence end.
const APPOSITION = /^,?[ \u00a0]+(?:an?|the|een|de|het|un|une|le|la|l['’]|ein|eine|der|die|das)[ \u00a0][^.!?\n]{0,80}/iu;
const AI_WORDS = /(?:assist|model|modèle|agent|chatbot|(?<![\p{L}])(?:ai|ki|ia|llm|bot)(?![\p{L}]))/iu;
const AI_WORDS_FIRST_PERSON = /(?:model|modèle|chatbot|(?<![\p{L}])(?:ai|ki|ia|llm)(?![\p{L}]))/iu;
const SECOND_PERSON_BEFORE = /(?:^|[^\p{L}])(?:you are|you['’]re|je bent|jij bent|u bent|tu es|vous êtes|du bist|sie sind)[ \u00a0]+$/iu;
const FIRST_PERSON_BEFORE = /(?:^|[^\p{L}])(?:i am|i['’]m|this is|ik ben|je suis|ich bin)[ \u00a0]+$/iu;
const ASSISTANT_NAME_G = new RegExp(`(?<![\\p{L}\\p{N}])(?:${[...ASSISTANT_NAMES].join('|')})(?![\\p{L}\\p{N}])`, 'giu');

// Places and honours named after people: a room or hall named so ("salle Victor Hugo", "in room
// Darwin", "zaal Erasmus"), a restaurant ("bij Chez Paul": "Chez" with its capital mid-sentence; "chez
// Paul" is at Paul's), a fellowship, prize or bay ("Marie Curie fellowship", "Nelson Mandela Bay").
// Only where such a word stands right before or after the name: without it, the person.
// French names schools, hospitals and streets after people with the noun first ("le collège Victor
// Hugo", "rue Victor Hugo" without a house number, "l'hôpital Édouard Herriot").
const ROOM_BEFORE = new Set([
  'salle', 'room', 'zaal', 'saal', 'raum', 'lokaal', 'aula', 'amphi', 'hörsaal', 'boardroom', 'gebouw', 'building', 'bâtiment', 'gebäude',
  'collège', 'lycée', 'école', 'hôpital', 'clinique', 'musée', 'stade', 'institut', 'rue', 'avenue', 'boulevard', 'impasse', 'allée', 'quai',
]);
// Dutch and German put the noun after the name, in lower case in Dutch ("het Antoni van Leeuwenhoek
// ziekenhuis", "de Anne Frank school").
const HONOUR_AFTER_Y =
  /[ \u00a0](?:[Ff]ellowships?|[Ss]cholarships?|[Pp]rize|[Aa]ward|[Mm]edal|[Ll]ecture|[Gg]rant|[Pp]rijs|[Bb]eurs|Preis|Stipendium|[Pp]rix|[Bb]ourse|Bay|Airport|Stadium|Institute|Instituut|Institut|University|Universiteit|Université|Universität|Museum|Bridge|[Zz]iekenhuis|[Kk]liniek|Klinik|Klinikum|Krankenhaus|Hospital|[Gg]ymnasium|[Ll]yceum|[Cc]ollege|[Ss]chool|Schule|Stiftung|Hochschule|[Aa]cademie|Akademie|[Bb]uilding|[Gg]ebouw|Gebäude|Centre|Center|Station|Library|[Bb]ibliothee?k|Theatre|Theater|Memorial|Foundation|Fondation|Gallery)(?![\p{L}])/uy;

// The last part of a hyphen-joined compound that makes it an institution's or a street's name, as
// German and Dutch write them: "Robert-Koch-Institut", "Johann-Wolfgang-Goethe-Universität",
// "Friedrich-Ebert-Stiftung", "Konrad-Adenauer-Straße", "Anne-Frank-Schule", "Prins-Hendrik-laan".
// Such a compound names no one, whatever cue stands before it. Lower case; not words that are also
// surnames ("Park", "Haus", "Halle", "Hof", "Kerk").
const INSTITUTION_LAST_PARTS = new Set(
  `institut institute instituut universität universitat university universiteit université hochschule fachhochschule akademie academie
  stiftung stichting gesellschaft verein foundation preis prijs medaille stipendium museum zentrum centrum center
  klinik klinikum kliniek krankenhaus ziekenhuis hospital schule grundschule gesamtschule realschule hauptschule gymnasium lyzeum
  school college lyceum basisschool bibliothek bibliotheek stadion arena bahnhof flughafen
  straße strasse str platz allee weg gasse damm ufer brücke ring chaussee straat laan plein kade gracht singel dreef steeg brug`.split(/\s+/),
);

/** Whether [start, end), with the hyphen-joined parts right after it, ends in an institution's or a street's word. */
function namesAnInstitution(text: string, start: number, end: number): boolean {
  let last = end;
  while (text.charCodeAt(last) === 45 && isLetterCode(text.charCodeAt(last + 1))) {
    last++;
    while (last < text.length && last - end < 64 && isLetterCode(text.charCodeAt(last))) last++;
  }
  let dash = last;
  while (dash > start && text.charCodeAt(dash - 1) !== 45 && last - dash < 32) dash--;
  if (dash <= start || text.charCodeAt(dash - 1) !== 45) return false;
  return INSTITUTION_LAST_PARTS.has(text.slice(dash, last).toLowerCase());
}

// A street named after a person: "near Lucas Street", "Emma Road", "Anna Straße", "Sophie Avenue",
// "Julianastraat". The street word after the name, or taken into it as a surname, makes it a place
// (a street without a house number is no address, and stays).
const STREET_AFTER_Y =
  /[ \u00a0](?:Street|St\.|Road|Rd\.?|Avenue|Ave\.?|Lane|Drive|Boulevard|Crescent|Square|Stra(?:ß|ss)e|[Ss]traat|Laan|Allee|Gasse|Platz|Plein)(?![\p{L}])/uy;
const STREET_WORDS = new Set(['Street', 'St', 'Road', 'Rd', 'Avenue', 'Ave', 'Lane', 'Drive', 'Boulevard', 'Crescent', 'Square', 'Straße', 'Strasse', 'Straat', 'Laan', 'Allee', 'Gasse', 'Platz', 'Plein']);

function namesAStreet(text: string, start: number, end: number): boolean {
  STREET_AFTER_Y.lastIndex = end;
  if (STREET_AFTER_Y.test(text)) return true;
  let last = end;
  while (last > start && text.charCodeAt(last - 1) !== 32 && text.charCodeAt(last - 1) !== 0xa0) last--;
  if (last <= start) return false;
  const word = text.slice(last, end);
  // "Albert Cuypstraat", "Anna Paulownaplein": the street word glued to the surname. Not "weg" or
  // "dijk", which end surnames ("Hogeweg", "Verdijk").
  return STREET_WORDS.has(word) || GLUED_STREET_ENDING.test(word);
}
const GLUED_STREET_ENDING = /\p{L}{2}(?:straat|laan|plein|gracht|kade|singel|steeg|straße|strasse|platz|allee|gasse)$/u;

// Spanish, Italian and Polish streets put their type first, and are as often named after people
// ("Via Appia Antica", "al. Jana Pawła II", "Calle Francisco Silvela"): "then Via Appia Antica 3
// times" was "Via [PERSON_1]", and "al. [PERSON_1] II 15" left the street unread. Not "et al.";
// "Via" only mid-sentence ("Via Jan we got the deal" is English "through").
const SOUTH_TYPE_BEFORE =
  /(?:^|[^\p{L}])(Via|[Vv]iale|[Pp]iazza|[Pp]iazzale|Corso|Largo|Vicolo|[Cc]alle|[Aa]venida|[Pp]aseo|Plaza|[Uu]lica|[Aa]leja|[Pp]lac|[Oo]siedle|(?<!et[ \u00a0])al\.|ul\.|pl\.|os\.|C\/|Avda\.)[ \u00a0]+$/u;

function afterSouthernStreetType(text: string, start: number): boolean {
  const from = Math.max(0, start - 14);
  const m = SOUTH_TYPE_BEFORE.exec(text.slice(from, start));
  if (m === null) return false;
  if (m[1] !== 'Via') return true;
  let i = from + m.index + m[0].indexOf('Via') - 1;
  while (i >= 0 && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 0xa0)) i--;
  return i >= 0 && !/[.!?\n:]/.test(text[i]!);
}

const PLACE_PREPOSITIONS_NL = new Set(['in', 'naar', 'bij', 'uit', 'vanuit', 'op', 'via', 'tot', 'voor', 'achter', 'tegenover', 'langs']);

// A saint's word before a first name makes it a place's, a church's or a feast's name ("San
// Francisco", "San Diego and Santa Monica", "São Paulo", "Sint Maarten", "Sankt Peter", "St. John's",
// "Saint Denis"), and so do a port's, a coast's and a mountain's ("Puerto Rico", "Costa Rica",
// "Monte Carlo"): read as a lone first name mid-sentence, "San [PERSON_1]" was sent and the model
// no longer knew the town. A title or a strong cue still reads a person ("Mr. San Juan").
// The window is the longest saint's word, its space, and the character before it.
// "Lake Louise", "Mount Hope", "Cape Ann", "Fort William", "Port Elizabeth", "Loch Katrine" (QA).
const SAINT_BEFORE = /(?:^|[^\p{L}\p{N}])(?:San|Santa|Santo|Santi|São|Sao|Saint|Sainte|Saints|St\.?|Ste\.?|Sankt|Sint|Szent|Puerto|Porto|Costa|Monte|Lake|Mount|Mt\.?|Cape|Fort|Port|Loch|Lac)[ \u00a0]$/u;
const SAINT_WINDOW = 9;

function afterSaintWord(text: string, start: number): boolean {
  return start >= 3 && SAINT_BEFORE.test(text.slice(Math.max(0, start - SAINT_WINDOW), start));
}

/** Whether the name at [start, end) names a room, a restaurant, an honour, a street or a place (see ROOM_BEFORE). */
function namesAPlaceOrHonour(text: string, start: number, end: number): boolean {
  HONOUR_AFTER_Y.lastIndex = end;
  if (HONOUR_AFTER_Y.test(text) || namesAStreet(text, start, end) || afterSouthernStreetType(text, start) || afterSaintWord(text, start)) return true;
  if (namesAThing(text, start, end)) return true;
  const before = wordBefore(text, start);
  if (ROOM_BEFORE.has(before.word)) return true;
  // "in het Antoni van Leeuwenhoek", "naar het Erasmus": Dutch puts the neuter article before a
  // hospital's, a school's or a museum's name, not before a person's. After a preposition only:
  // "ik heb het Anna verteld" is "it" before the person told.
  if (before.word === 'het' && text.charCodeAt(before.at) === 104 && PLACE_PREPOSITIONS_NL.has(wordBefore(text, before.at).word)) return true;
  return before.word === 'chez' && text.charCodeAt(before.at) === 67 && !SENTENCE_START.test(text.slice(Math.max(0, before.at - 4), before.at)) && before.at > 0;
}

// Words of a company's, a service's or a public body's name in a signature line: the line under a
// closing ("Thanks!\nRust Belt Analytics") is as often the sender's organisation as its person.
const ORGANISATION_WORDS = new Set(
  `services service analytics solutions systems technologies technology tech software labs lab consulting consultants partners
  holdings group gruppe groep bank agency studio studios media digital capital ventures network networks logistics industries
  enterprises associates corporation company support team teams web cloud data insurance versicherung versicherungen
  verzekeringen assurances office department administration club association society union council stadtwerke gemeente
  gemeinde stadt stadtverwaltung klantenservice kundenservice kundendienst helpdesk servicedesk redaktion redactie
  marketing sales ops operations finance legal hr recruitment communications communicatie marketingteam sales-team
  inkoop verkoop afdeling abteilung vertrieb einkauf buchhaltung personalabteilung ventes achats comptabilité
  engineering accounting purchasing procurement billing payroll compliance facilities security research devops infrastructure
  equipo equipa departamento soporte suporte atención atendimento servicio serviço ventas compras contabilidad administración
  ufficio reparto servizio assistenza amministrazione acquisti vendite contabilità dział zespół biuro obsługi obsługa`.split(/\s+/),
);
// A possessive or an article opening the line: "Ihre Stadtwerke München", "Your Acme team", "Het
// team van …" ("De" leads Dutch surnames and is left out).
const SIGNATURE_OPENERS = new Set(['Ihre', 'Ihr', 'Euer', 'Eure', 'Your', 'The', 'Uw', 'Jullie', 'Het', 'Votre', 'Vos', 'Das', 'Die', 'Der', 'Le', 'La', 'Les', 'Tu', 'Su', 'Il', 'El']);

/** Whether the signature at [start, end) under a closing names an organisation or a place. */
function signsAsOrganisation(text: string, start: number, end: number): boolean {
  const space = text.indexOf(' ', start);
  if (SIGNATURE_OPENERS.has(text.slice(start, space > start && space < end ? space : end))) return true;
  for (const word of text.slice(start, end).split(/[^\p{L}]+/u)) if (ORGANISATION_WORDS.has(word.toLowerCase())) return true;
  // "Grace Hopper Center": the last word is a place's or an honour's, taken into the name.
  const last = text.lastIndexOf(' ', end - 1);
  if (last > start) {
    HONOUR_AFTER_Y.lastIndex = last;
    if (HONOUR_AFTER_Y.test(text) && HONOUR_AFTER_Y.lastIndex === end) return true;
  }
  return namesAPlaceOrHonour(text, start, end);
}

const CARD_CUE = /^(?:name on|card ?holder|karteninhaber|name auf der karte|kaarthouder|naam op|nom sur la carte|titulaire de la carte)/iu;
const CARD_WORDS = new Set(
  `visa mastercard master maestro amex american express diners discover jcb unionpay cb gold platinum silver classic business
  corporate company account debit credit card premium infinite signature world elite black standard prepaid virtual bank
  firmenkarte geschäftskonto konto zakelijk rekening entreprise société`.split(/\s+/),
);

/** Whether the name at [start, end) under a card's cue, or the word after it, is a card's brand or product or an account's kind. */
function namesACardProduct(text: string, start: number, end: number): boolean {
  for (const word of text.slice(start, end).split(/[^\p{L}]+/u)) if (CARD_WORDS.has(word.toLowerCase())) return true;
  WORD_AFTER_Y.lastIndex = end;
  const next = WORD_AFTER_Y.exec(text);
  return next !== null && CARD_WORDS.has(next[1]!.toLowerCase());
}
const WORD_AFTER_Y = /[ \u00a0]+(\p{L}{1,20})/uy;

function isAssistantName(word: string): boolean {
  return word.length <= 8 && ASSISTANT_NAMES.has(word.toLowerCase());
}

// AI products whose names are no first names, and the list joints between products: "Devin, Copilot
// and Cursor", "GitHub Copilot, Devin", "Cursor / Devin". An assistant's name listed next to one is
// the product too. Next to a name that is also a first name ("Claude, Devin and Cody") it is not:
// those may as well be people.
const AI_PRODUCTS = new Set(
  'codex chatgpt gemini mistral mixtral llama copilot grok qwen deepseek cortana bard cursor windsurf aider tabnine replit lovable perplexity openai anthropic'.split(' '),
);
const LIST_NEXT_Y = /(?:,|[ \u00a0]*\/|[ \u00a0]+(?:and|or|en|of|und|oder|et|ou))[ \u00a0]+(?:GitHub[ \u00a0]+)?(\p{L}[\p{L}\p{N}]*)/uy;
const LIST_BEFORE = /(\p{L}[\p{L}\p{N}]*)(?:,|[ \u00a0]*\/|[ \u00a0]+(?:and|or|en|of|und|oder|et|ou))[ \u00a0]+$/u;

function listedWithAiProducts(text: string, start: number, end: number): boolean {
  LIST_NEXT_Y.lastIndex = end;
  const next = LIST_NEXT_Y.exec(text);
  if (next !== null && AI_PRODUCTS.has(next[1]!.toLowerCase())) return true;
  // A bounded window: the word and joint before the name.
  const previous = LIST_BEFORE.exec(text.slice(Math.max(0, start - 32), start));
  return previous !== null && AI_PRODUCTS.has(previous[1]!.toLowerCase());
}

// The noun an assistant's name qualifies after an English determiner: "this Claude session", "a
// Codex sandbox", "the Gemini app" speak of the product, and so make its lone name ("when Claude
// exits") the product elsewhere in the text. Not a word that goes on about someone ("the Claude who").
const NOUN_AFTER_Y = /[ \u00a0]+(?!(?:of|who|whom|whose|that|which|from|with|at|in|and|or|is|was|has|had)(?![\p{L}]))\p{Ll}{3,}(?![\p{L}])/uy;

/** Whether the assistant's name at [start, end) is spoken of as the product here. */
function speaksOfAssistant(text: string, start: number, end: number): boolean {
  PRODUCT_AFTER_Y.lastIndex = end;
  if (PRODUCT_AFTER_Y.test(text) || listedWithAiProducts(text, start, end)) return true;
  if (DETERMINERS.has(wordBefore(text, start).word) && stickyAt(NOUN_AFTER_Y, text, end) > 0) return true;
  const before = text.slice(Math.max(0, start - 16), start);
  const second = SECOND_PERSON_BEFORE.test(before);
  if (!second && !FIRST_PERSON_BEFORE.test(before)) return false;
  const apposition = APPOSITION.exec(text.slice(end, end + 96));
  return apposition !== null && (second ? AI_WORDS : AI_WORDS_FIRST_PERSON).test(apposition[0]);
}

// Words that speak of an AI model and of nothing else: a tool description says "Allows Claude to
// search the web", "beyond Claude's knowledge cutoff", a prompt "Claude is an AI assistant made by
// Anthropic". A lone assistant's name in the same sentence is the model. "model", "assistant" and
// "AI" alone do not count: a person can be an assistant, a model, or know about AI ("My assistant
// Claude will call you back", "Claude is the model for our spring catalogue", "I met Claude, our AI
// consultant"). Case is written out where lower case is another word (French "j'ai").
const AI_CONTEXT_G =
  /(?<![\p{L}\p{N}])(?:(?:AI|KI)[ -](?:[Aa]ssistent(?:in)?|[Aa]ssistants?|[Mm]odell?s?|[Mm]odellen|[Aa]gents?|[Ss]ystems?|[Cc]hatbots?)|(?:[Aa]ssistants?|[Mm]odèles?|[Aa]gents?) (?:d['’])?IA|LLMs?|GPTs?|Anthropic|OpenAI|[Cc]hatbots?|[Kk]nowledge[ -]cut-?off|[Tt]raining (?:data|cut-?off)|[Ss]earch(?:es|ing)? the web|[Ww]eb searche?s?|[Bb]rowse the web|[Ll]anguage models?|[Tt]aalmodel(?:len)?|[Ss]prachmodell(?:e|en)?|[Mm]odèles? de langage|[Ss]ystem prompts?|[Cc]ontext window|[Tt]ool (?:calls?|use|results?)|[Cc]oding (?:agents?|assistants?))(?![\p{L}\p{N}])/gu;
// How far an AI word may stand from the name, within one sentence.
const AI_CONTEXT_REACH = 160;
// A sentence ends at a full stop, question or exclamation mark before a space, or at a line break.
const SENTENCE_BREAK = /[.!?][ \u00a0\n]|\n/u;
// A greeting before the name addresses someone: no evidence of the model, whatever the sentence
// speaks of ("Bonjour Claude, votre abonnement IA est renouvelé").
const GREETINGS_BEFORE = new Set(
  'hi hello hey dear thanks thank hoi hallo beste dag bedankt bonjour salut coucou cher chère merci liebe lieber moin servus danke ciao'.split(' '),
);
// A capitalised word after the name, other than a product word: a surname ("Claude Dubois").
const CAPITAL_AFTER_Y = /[ \u00a0]+\p{Lu}/uy;

/** Positions of the AI words in the text (see AI_CONTEXT_G), in order. */
function aiContextPositions(text: string): number[] {
  const at: number[] = [];
  AI_CONTEXT_G.lastIndex = 0;
  for (let m = AI_CONTEXT_G.exec(text); m; m = AI_CONTEXT_G.exec(text)) at.push(m.index, m.index + m[0].length);
  return at;
}

/**
 * Whether an AI word stands in the sentence of [start, end), within reach. `ai`: start, end pairs;
 * `next`: the first pair that ends after `start`. Only the nearest word on either side is read: a
 * sentence break between the name and it lies between the name and every farther one.
 */
function aiWordInSentence(text: string, start: number, end: number, ai: readonly number[], next: number): boolean {
  if (next >= 2 && ai[next - 1]! > start - AI_CONTEXT_REACH && !SENTENCE_BREAK.test(text.slice(ai[next - 1]!, start))) return true;
  return next < ai.length && ai[next]! < end + AI_CONTEXT_REACH && !SENTENCE_BREAK.test(text.slice(end, ai[next]!));
}

/** The assistants' names (lower case) the text speaks of as products: read once per text, when one is met. */
function assistantsSpokenOf(text: string): Set<string> {
  const names = new Set<string>();
  // Names that also go with a surname in the text ("Claude Dubois"): a person so named is there,
  // and a sentence's AI words do not make the lone name the model.
  const people = new Set<string>();
  const lone: Array<[string, number, number]> = [];
  ASSISTANT_NAME_G.lastIndex = 0;
  for (let m = ASSISTANT_NAME_G.exec(text); m; m = ASSISTANT_NAME_G.exec(text)) {
    const name = m[0].toLowerCase();
    const end = m.index + m[0].length;
    if (names.has(name)) continue;
    if (speaksOfAssistant(text, m.index, end)) {
      names.add(name);
      continue;
    }
    if (stickyAt(CAPITAL_AFTER_Y, text, end) > 0) people.add(name);
    else if (!GREETINGS_BEFORE.has(wordBefore(text, m.index).word.toLowerCase())) lone.push([name, m.index, end]);
  }
  if (lone.length === 0) return names;
  const ai = aiContextPositions(text);
  if (ai.length === 0) return names;
  let next = 0;
  for (const [name, start, end] of lone) {
    if (names.has(name) || people.has(name)) continue;
    // Mentions come in order: one pass over the AI words for all of them.
    while (next < ai.length && ai[next + 1]! <= start) next += 2;
    if (aiWordInSentence(text, start, end, ai, next)) names.add(name);
  }
  return names;
}

const GERMAN_ARTICLE_Y = /^(?:der|des|den|dem|die|das)[ \u00a0]/u;

/** Whether a capitalised word follows the space at `at`. */
function capitalisedAfter(text: string, at: number): boolean {
  return (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 0xa0) && tokenAt(text, at + 1) !== null;
}

function push(out: Detection[], text: string, start: number, end: number): void {
  const value = text.slice(start, end);
  out.push({ type: 'PERSON', start, end, text: value, checksum: false, normalized: value.replace(/\s+/g, ' ').toLowerCase() });
}

export function findPersons(text: string, language: Language, scan?: TextScan): Detection[] {
  const s = scanOf(text, scan);
  const out: Detection[] = [];
  // Characters already inside a name: one byte per character keeps every check O(span).
  let covered: Uint8Array | null = null;
  const isCovered = (s: number) => covered !== null && covered[s] === 1;
  let assistants: Set<string> | null = null;
  // A lone assistant's name the text speaks of as the product (see ASSISTANT_NAMES).
  const isAssistantHere = (start: number, end: number) => {
    const word = text.slice(start, end);
    if (!isAssistantName(word)) return false;
    assistants ??= assistantsSpokenOf(text);
    return assistants.has(word.toLowerCase());
  };
  // `strong`: a strong cue or a title gave the name, which no other reading overrides.
  const take = (start: number, end: number, strong = false) => {
    if (!strong && (isAssistantHere(start, end) || namesAPlaceOrHonour(text, start, end) || namesAnEvent(text, start, end) || namesADisease(text, start, end))) return;
    covered ??= new Uint8Array(text.length);
    for (let k = start; k < end; k++) if (covered[k] === 1) return;
    if (isOrganisation(text, start, end) || namesAnInstitution(text, start, end)) return;
    covered.fill(1, start, end);
    push(out, text, start, end);
  };

  const takeStrongFirst = (start: number, end: number) => take(start, end, true);
  // A name found without a cue, unless code names a type or component with it ("class Victor").
  const takeName = (start: number, end: number) => {
    if (!isCodeIdentifier(text, start, end)) take(start, end);
  };

  findInitialsWithCallingName(text, (start, end) => take(start, end, true));
  const positions = cuePositions(s, ALL_CUE_BITS);
  for (let c = 0; c < CUES.length; c++) {
    const { re, mode, sticky } = CUES[c]!;
    const cues = new Matcher(re, s, positions[c]!, { sparse: ALWAYS_STICKY, sticky });
    for (let m = cues.exec(); m; m = cues.exec()) {
      const pos = m.index + m[0].length;
      if (m[0].length === 0) {
        cues.lastIndex++;
        continue;
      }
      if (mode === 'title' && isEponym(text, m.index)) continue; // "Dr. Oetker"
      // "Herr der Lage", "Herr des Verfahrens", "Frau des Hauses": German "Herr" or "Frau" before an
      // article is the noun (lord, mistress, wife), and what follows it no name.
      if (mode === 'title' && GERMAN_ARTICLE_Y.test(text.slice(pos, pos + 4)) && /^(?:Herrn?|Frau)[ \u00a0]+$/u.test(m[0])) continue;
      if (mode === 'title' && language !== 'fr' && text.startsWith('M.', m.index) && !titleMHere(text, m.index, pos)) continue;
      if (mode === 'title' && text.startsWith('Pan ', m.index) && !polishPanHere(text, pos)) continue;
      if (mode === 'title' && stickyAt(IBERIAN_CHECKED_Y, text, m.index) > 0 && !iberianTitleHere(text, m.index, pos)) continue;
      // "Szanowny Panie Prezesie", "Pani Dyrektor", "Egregio sig. Direttore", "Herr Präsident": a
      // title before an office addresses its holder by the office, and no name follows (QA).
      if (mode === 'title' && addressedByOffice(text, pos)) continue;
      // "the best Ben & Jerry's flavour": "best" reads as a sign-off, but a brand follows it.
      if (mode === 'weak' && (isEponym(text, pos) || vehicleEnd(text, pos) > 0)) continue;
      // Initials after a sign-off ("Best, A. Smith"): tried only where a capital and a full stop follow.
      let name = parseName(text, pos, mode, language);
      const introduction = mode === 'weak' && isSelfIntroduction(m[0]);
      // "I'm Fine": after a self-introduction a lone first name that is also a word is how one is.
      // But "soy Alba de contabilidad", "I'm Grace from accounting": where one works says who (QA).
      if (name !== null && introduction && name.tokens === 1 && AMBIGUOUS.has(name.first) && stickyAt(AFFILIATION_AFTER_Y, text, name.end) < 0) name = null;
      // Initials after a sign-off or a contact cue ("Best, A. Smith", "call J. de Vries"): tried
      // only where a capital and a full stop follow.
      if (!name && mode === 'weak' && text.charCodeAt(pos + 1) === 46) {
        const after = initialsAllowedAfter(m[0]);
        if (after !== null) name = initialledName(text, pos, after === 'surname');
      }
      if (!name && introduction) name = surnameAlone(text, pos);
      if (!name) continue;
      // "Merci !\nBonne journée", "Danke!\nDas Angebot folgt": a thanks opens as many lines of prose
      // as it closes messages, so under one the signature is a first name the lists know or a line
      // of its own.
      if (c === SIGNOFF && THANKS.test(m[0]) && !knownFirst(name.first) && !endsItsLine(text, name.end)) continue;
      // "Thanks in advance,\nAmazon Web Services", "Vielen Dank!\nIhre Stadtwerke München",
      // "Thanks,\nGrace Hopper Center": a company or a place signs as often as a person (and is
      // greeted: "Dear Acme Support").
      if ((c === SIGNOFF || mode === 'weak') && signsAsOrganisation(text, pos, name.end)) continue;
      // "Cardholder: Business Account", "Name on card: VISA GOLD": a card's brand or product, or
      // an account's kind, is what a form shows there as often as the holder's name.
      // A first name the lists know keeps it a person's ("Cardholder: Jane Gold").
      if (mode === 'strong' && CARD_CUE.test(m[0]) && !knownFirst(name.first) && namesACardProduct(text, pos, name.end)) continue;
      // "Bedankt!\nGroetjes,\nAnouk": the line under a closing is another closing, over the name.
      if (c === SIGNOFF && stickyAt(sticky, text, pos) > 0) continue;
      take(pos, name.end, mode === 'strong' || mode === 'title');
      cues.lastIndex = Math.max(cues.lastIndex, name.end);
    }
  }

  // Before the tokens: read from its surname, "A.B. de Vries" left its initials in clear.
  findInitialsAndKnownSurname(text, s, isCovered, takeName);
  // A token starts at an upper-case letter not preceded by a letter, number, apostrophe or hyphen.
  const tokens = new Matcher(TOKEN_G, s, s.capAt, { sparse: ALWAYS_STICKY, sticky: TOKEN_AT_CAP });
  for (let m = tokens.exec(); m; m = tokens.exec()) {
    const start = m.index;
    if (isCovered(start)) continue;
    const tok = m[0];
    // Every capitalised token is asked: the token is known, so only a maker's costs more than a lookup.
    const vehicle = VEHICLE_MAKERS.has(tok) || TWO_WORD_MAKERS.has(tok) ? vehicleEnd(text, start, tok) : -1;
    if (vehicle > 0) {
      tokens.lastIndex = Math.max(tokens.lastIndex, vehicle);
      continue;
    }
    // The Spanish article leads a place's or a shop's name ("El Corte Inglés", "El Museo del Prado"),
    // and is a first name too rarely for "El Corte" to be one.
    if (MAKERS.has(tok) || tok === 'El') continue;
    // "Storm Ashley", "Hurricane Helene", "Tief Bernd": the event word and the storm's name.
    if ((EVENT_WORDS.has(tok.toLowerCase()) || EVENT_NOUNS.has(tok)) && text.charCodeAt(start + tok.length) === 32) {
      const next = tokenAt(text, start + tok.length + 1);
      if (next !== null && namesAnEvent(text, start + tok.length + 1, start + tok.length + 1 + next.length) && !capitalisedAfter(text, start + tok.length + 1 + next.length)) {
        tokens.lastIndex = Math.max(tokens.lastIndex, start + tok.length + 1 + next.length);
        continue;
      }
    }
    if (isEponym(text, start)) {
      tokens.lastIndex = EPONYM.lastIndex;
      continue;
    }
    if (VN_SURNAMES.has(tok)) {
      const end = vietnameseName(text, start + tok.length, VN_DISTINCT.has(tok));
      if (end > 0) {
        takeName(start, end);
        tokens.lastIndex = Math.max(tokens.lastIndex, end);
        continue;
      }
    }
    if (CAP_PARTICLE_FIRST.has(tok)) {
      // "De Dam", "De Kuip": the article and a place, whatever the lists or the words around say.
      const place = tok === 'De' ? articleAndPlaceEnd(text, start) : -1;
      if (place > 0) {
        tokens.lastIndex = Math.max(tokens.lastIndex, place);
        continue;
      }
      const end = particleName(text, start);
      if (end > 0) {
        takeName(start, end);
        tokens.lastIndex = Math.max(tokens.lastIndex, end);
        continue;
      }
    }
    if (knownFirst(tok)) {
      // "Devin Pro", "Jules Agent": the product word is no surname.
      if (isAssistantName(tok) && stickyAt(PRODUCT_AFTER_Y, text, start + tok.length) > 0) continue;
      const name = parseName(text, start, 'gazetteer', language);
      if (!name) continue;
      const afterKin = KINSHIP_BEFORE.has(wordBefore(text, start).word.toLowerCase());
      if (name.tokens === 1 && ((!afterKin && !loneNameOk(text, start, name.end, tok)) || isTownHere(text, start, tok) || programmingLanguageHere(text, start, name.end, tok) || toolHere(text, start, name.end, tok) || brandHere(text, start, name.end, tok))) continue;
      takeName(start, name.end);
      tokens.lastIndex = Math.max(tokens.lastIndex, name.end);
      continue;
    }
    // A known surname after lower-case particles mid-sentence: "volgens de Boer", "spoke to van Dijk".
    if (endsLikeParticle(text, start) && isKnownLastName(tok) && !knownFirst(tok)) {
      const from = particlesBefore(text, start, language);
      // "op de Dam": the article, and the place (see PLACE_NOUNS_AFTER_DE).
      const article = from >= 0 && start - from === 3 && placeAfterArticle(text, start, tok);
      if (from >= 0 && !isCovered(from) && !article) {
        takeName(from, start + tok.length);
        continue;
      }
    }
    // "Bakker belde net", "Thompson said", "Müller hat angerufen": a known surname alone as who calls or speaks.
    if (surnameSpeaksHere(text, start, tok)) {
      takeName(start, start + tok.length);
      continue;
    }
    // An unknown capitalised token directly followed by a known surname ("Hanneke Kramer"), or by an
    // Irish particle and a surname ("Ciarán Ó Súilleabháin").
    const end = knownSurnameAfter(text, start + tok.length);
    if (end > 0 && acceptableToken(tok) && tok.length >= 2 && tok !== tok.toUpperCase() && !TRAVEL_WORDS.has(tok.toLowerCase()) && tok !== 'Naar') {
      // "Bäckerei Müller", "Klingel Möller", "Garage Bakker": a noun names the place, the surname the person.
      const from = isNounBeforeSurname(tok) || VERBS_BEFORE_A_PERSON.has(tok) ? stickyAt(SPACE_Y, text, start + tok.length) : start;
      takeName(from, end);
      tokens.lastIndex = Math.max(tokens.lastIndex, end);
    }
  }
  if (text.indexOf(' - ') >= 0) findWhatsAppSpeakers(text, takeStrongFirst);
  // Before the chat-style readings: "call tom baker" is one name, not a lone first name after "call".
  findCuedLowerCasePairs(text, s, positions[BITS.length + 2]!, take);
  findLowerCaseNames(text, s, take);
  const takeStrong = (start: number, end: number) => take(start, end, true);
  findTitledLowerCase(text, takeStrong);
  findNamedLowerCase(text, s, positions[BITS.length]!, takeStrong);
  findIntroducedLowerCase(text, s, positions[BITS.length + 1]!, take);
  // "the Hendricks family", "the Van Dijk family": a surname before "family" in English.
  if (text.includes(' family')) {
    FAMILY_AFTER.lastIndex = 0;
    for (let m = FAMILY_AFTER.exec(text); m; m = FAMILY_AFTER.exec(text)) {
      const start = m.index + m[0].length - 'family'.length - m[1]!.length;
      const last = m[1]!.trim().split(/[ \u00a0]+/).at(-1)!;
      if (!isCovered(start) && isSurname(last) && !isNonNameWord(last)) take(start, start + m[1]!.trimEnd().length);
    }
  }
  // Coordination: "Victoria Hughes and Mark Stevens" — a first name right after a name and a
  // conjunction is a name even when it is also a common word; so are initials and a known
  // surname ("A.B. Bakker en K. Jansen").
  out.sort((a, b) => a.start - b.start);
  // "Claudia Richter, geb. Bergmann", "Jane Harper (née Whitmore)": the maiden name after a name.
  const named = out.length;
  for (let k = 0; k < named; k++) {
    const maiden = maidenNameAfter(text, out[k]!.end);
    if (maiden !== null && !isCovered(maiden[0])) take(maiden[0], maiden[1], true);
  }
  if (out.length > named) out.sort((a, b) => a.start - b.start);
  const n = out.length;
  for (let k = 0; k < out.length; k++) {
    const d = out[k]!;
    CONJUNCTION_Y.lastIndex = d.end;
    if (!CONJUNCTION_Y.test(text)) continue;
    const pos = CONJUNCTION_Y.lastIndex;
    if (isCovered(pos)) continue;
    const name = parseName(text, pos, 'weak', language) ?? (text.charCodeAt(pos + 1) === 46 ? initialledName(text, pos, true) : null);
    if (!name || name.tokens < 2) continue;
    take(pos, name.end); // appended; also examined by this loop for "A, B and C and D"
  }
  if (out.length > n) out.sort((a, b) => a.start - b.start);
  return out;
}

// Initials and a surname the lists know, without a cue: "Betaald aan J. Jansen voor de fiets",
// "Overboeking NL20… J. Bos 250,00". A bank statement or a note writes people so, and the surname
// went out in clear. The surname must be known or known by its form, and no word the lists also
// hold as one ("Plan B. Young people", "vitamin D. Green tea", "Hall B. Bell": a label's letter at
// a sentence's end, then a word); a particle alone does not do ("Vitamin D. De …"). After who
// approved or checked a document any surname will do ("Approved by K. Nakamura", "Goedgekeurd door
// P. Oosterwijk"): a signature in all but name. Cost: a look at the character after each capital
// the pre-scan lists; the approval's words are read back from initials only (as weak cues, their
// prefixes "check", "review", "valid", "gene…" sent a cue regex to many words of every prompt).
const APPROVAL_BEFORE =
  /(?:^|[^\p{L}])(?:(?:approved|reviewed|checked|authori[sz]ed|signed off) by|(?:goedgekeurd|gecontroleerd|geaccordeerd|akkoord) door|(?:genehmigt|freigegeben|geprüft) von|(?:approuvé|validé|vérifié)e? par):?[ \u00a0]{1,3}$/iu;
const APPROVAL_WINDOW = 24;

function findInitialsAndKnownSurname(text: string, scan: TextScan, isCovered: (at: number) => boolean, take: (start: number, end: number) => void): void {
  const caps = scan.capAt;
  for (let c = 0; c < caps.length; c++) {
    const at = caps[c]!;
    // Not from inside others ("U.S. Post" from its "S."): the first initial reads them all.
    if (text.charCodeAt(at + 1) !== 46 || isCovered(at) || (at > 0 && text.charCodeAt(at - 1) === 46)) continue;
    const approved = APPROVAL_BEFORE.test(text.slice(Math.max(0, at - APPROVAL_WINDOW), at));
    const name = initialledName(text, at, !approved);
    if (name === null || NOT_PERSONAL_INITIALS.has(text.slice(at, name.end).split(/[ \u00a0]/)[0]!.replace(/\./g, ''))) continue;
    const surname = name.first;
    if (!approved && (!isSurname(surname) || AMBIGUOUS.has(surname) || SURNAME_ADJECTIVES.has(surname) || SURNAME_NOUNS.has(surname))) continue;
    take(at, name.end);
  }
}

// A maiden name after a name: "Ehefrau: Claudia Richter, geb. Bergmann", "Mrs Jane Harper (née
// Whitmore)", "Mme Sylvie Martin, née Dubois", "Mevrouw A. de Groot-Hendriks, geboren Hendriks". The
// word says a surname follows, known or not, and it went out in clear beside the placeholder.
// "geb." and "née" before a date or a place are a birth's ("geb. 12.03.1965", "née le 3 mai", "née
// à Lyon"): only a capitalised word is read, and not one a number follows ("born London 1950").
const MAIDEN_CUE_Y = /,?[ \u00a0]{0,3}\(?(?:geb\.|geborene?|geboren|née|born)[ \u00a0]{1,3}/uy;
const DIGIT_AFTER_Y = /[ \u00a0,]{0,3}\d/y;

/** The span of a maiden name after a name that ends at `end` (see MAIDEN_CUE_Y), or null. */
function maidenNameAfter(text: string, end: number): [number, number] | null {
  // The first letter after the name must start one of the words (g, n, b): most names are
  // followed by none, and this costs no regex call then.
  let k = end;
  while (k < end + 5 && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 44 || text.charCodeAt(k) === 40 || text.charCodeAt(k) === 0xa0)) k++;
  const c = text.charCodeAt(k);
  if (k === end || (c !== 103 && c !== 110 && c !== 98)) return null;
  const at = stickyAt(MAIDEN_CUE_Y, text, end);
  if (at < 0) return null;
  const p = particlesAt(text, at, true);
  const i = p > 0 ? p : at;
  const tok = tokenAt(text, i);
  if (tok === null || !acceptableToken(tok) || AMBIGUOUS.has(tok) || tok === tok.toUpperCase()) return null;
  DIGIT_AFTER_Y.lastIndex = i + tok.length;
  if (DIGIT_AFTER_Y.test(text)) return null;
  return [at, i + tok.length];
}

// A known surname alone, then a verb of calling, writing or saying: "Bakker belde net", "Jansen heeft
// gisteren gebeld", "Thompson said he'd send …", "Schneider schreibt, dass …", "Müller hat angerufen",
// "Dupont a appelé". One speaks of a colleague or a customer so, and the surname went out in clear.
// Only these verbs: after any other the word may be the noun it also is ("Bakker zoekt personeel",
// a shop's sign), and German writes its nouns with a capital ("Schneider" is a tailor). An
// auxiliary counts with such a participle within three words after it. Not after an article ("de
// bakker belde", "der Richter sagte"): the trade then. Bounded: the words between are runs of
// lower-case letters between spaces, at most three of at most 20.
const SPEAKS_DIRECT =
  'belde|belt|zei|zegt|vroeg|vraagt|mailde|mailt|appte|appt|schreef|schrijft|said|says|called|calls|rang|phoned|asked|asks|wrote|writes|emailed|texted|replied|told|sagt|sagte|schreibt|schrieb|fragt|fragte|ruft|rief|meinte|mailte|dit|appelle|appelait|écrit|demande|demandait|téléphone';
const SPEAKS_PARTICIPLE =
  'gebeld|gezegd|gevraagd|gemaild|geappt|geschreven|teruggebeld|called|said|asked|phoned|rung|emailed|written|texted|replied|angerufen|zurückgerufen|gesagt|gefragt|geschrieben|gemailt|appelé|rappelé|dit|demandé|écrit|téléphoné|répondu';
const SURNAME_SPEAKS_Y = new RegExp(
  `,?[ \\u00a0]{1,3}(?:(?:${SPEAKS_DIRECT})|(?:heeft|had|has|hat|hatte|a|avait)(?:[ \\u00a0]{1,3}\\p{Ll}{1,20}){0,3}?[ \\u00a0]{1,3}(?:${SPEAKS_PARTICIPLE}))(?![\\p{L}])`,
  'uy',
);
const ARTICLES_BEFORE_NOUNS = new Set(['de', 'het', 'een', 'the', 'a', 'an', 'der', 'die', 'das', 'den', 'dem', 'des', 'ein', 'eine', 'einen', 'le', 'la', 'les', 'un', 'une', 'du', 'this', 'that', 'our', 'onze', 'unser', 'unsere']);

// Firms and brands named like people, which business news has say things ("Ferrari said margins
// improved", "Chanel a annoncé", "Philips meldde"): masked, the firm became a person, and so did every
// other mention of it ("my [PERSON_1]") (QA).
const FIRMS_NAMED_LIKE_PEOPLE = new Set(
  `Chanel Dior Gucci Prada Armani Versace Cartier Hermès Fendi Fender Gibson Kraft Heinz Kellogg Boeing Dell Siemens Bosch
  Philips Heineken Nestlé Bayer Merck Pfizer Miele Braun Dyson Disney McLaren Marriott Hilton Ikea Zara Bugatti`.split(/\s+/),
);

/** Whether `tok` at `start` is a known surname alone that calls, writes or says something (see SURNAME_SPEAKS_Y). */
function surnameSpeaksHere(text: string, start: number, tok: string): boolean {
  // Most capitalised words are followed by no space or comma at all, or a capital: no lookups then.
  const next = text.charCodeAt(start + tok.length);
  if (next !== 32 && next !== 44 && next !== 0xa0) return false;
  // The verbs are written in lower case: a capital or a digit after the name ends the check here.
  const word = text.charCodeAt(start + tok.length + (next === 44 ? 2 : 1));
  if (!(word >= 97 && word <= 122) && word !== 0xe9) return false;
  if (!isKnownLastName(tok) || knownFirst(tok) || AMBIGUOUS.has(tok) || isNonNameWord(tok) || tok === tok.toUpperCase()) return false;
  if (VEHICLE_MAKERS.has(tok) || FIRMS_NAMED_LIKE_PEOPLE.has(tok)) return false;
  if (stickyAt(SURNAME_SPEAKS_Y, text, start + tok.length) < 0) return false;
  return !ARTICLES_BEFORE_NOUNS.has(wordBefore(text, start).word);
}

// Dutch names write the initials of every given name and the calling name (roepnaam) in brackets:
// "dhr. K.J. (Kees) de Wit", "P. (Piet) van Leeuwen", "J.A.M. (HANS) VAN DER HEIJDEN". The bracket
// stopped every reading of the name, and the surname alone was masked ("K.J. (Kees) [PERSON_1]").
// Initials right before a bracket that holds nothing but a first name the lists know, then a
// surname (maybe after particles): one person, titles left outside. Cost: one look at each "(".
const CALLING_NAME_Y = /\((\p{Lu}[\p{L}-]{1,30})\)[ \u00a0]+/uy;
const MAX_INITIALS = 6;

function findInitialsWithCallingName(text: string, take: (start: number, end: number) => void): void {
  for (let at = text.indexOf('('); at >= 0; at = text.indexOf('(', at + 1)) {
    const start = initialsBefore(text, at);
    if (start < 0) continue;
    CALLING_NAME_Y.lastIndex = at;
    const m = CALLING_NAME_Y.exec(text);
    if (!m || !knownFirst(m[1]!)) continue;
    const p = particlesAt(text, CALLING_NAME_Y.lastIndex, true);
    const i = p > 0 ? p : CALLING_NAME_Y.lastIndex;
    const tok = tokenAt(text, i);
    if (!tok || isNonNameWord(tok) || ROLE_WORDS.has(tok)) continue;
    take(start, i + tok.length);
  }
}

/** Start of the initials ("K.J. ", "J. A. M.", "P.") that end right before the bracket at `at`, or -1. */
function initialsBefore(text: string, at: number): number {
  let i = at - 1;
  if (i >= 0 && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 0xa0)) i--;
  let start = -1;
  for (let n = 0; n < MAX_INITIALS && i >= 1 && text.charCodeAt(i) === 46; n++) {
    const letter = text.charAt(i - 1);
    if (letter === letter.toLowerCase() || letter !== letter.toUpperCase()) break;
    // The initial is a word of its own: no letter or digit before it ("Dhr.", "MR." are no initials).
    if (i >= 2 && (isLetterCode(text.charCodeAt(i - 2)) || (text.charCodeAt(i - 2) >= 48 && text.charCodeAt(i - 2) <= 57))) break;
    start = i - 1;
    i -= 2;
    if (i >= 1 && text.charCodeAt(i) === 32 && text.charCodeAt(i - 1) === 46) i--;
  }
  return start;
}

// Organisations named like people: a legal form after the name ("Jansen Installatietechniek B.V.",
// "c/o Müller GmbH", "Dupont SARL") or a head noun before or at its start ("t.n.v. Gemeente
// Utrecht", "Stichting Anne Jansen", "Mairie de Lyon") says the name is a body's, not a person's.
// A cue such as "t.n.v." or "c/o" takes whatever capitalised words follow it, so without this the
// organisation was masked as a person and the model lost who the letter was for.
const LEGAL_FORM = '(?:B\\.V\\.?|BV|N\\.V\\.?|NV|V\\.O\\.F\\.?|VOF|BVBA|SRL|SPRL|GmbH|AG|KG|OHG|GbR|UG|e\\.V\\.|e\\.K\\.|SE|SA|S\\.A\\.|SAS|SARL|Ltd\\.?|Limited|LLC|Inc\\.?|PLC|plc|Corp\\.?)';
// After the name: up to three more capitalised words ("Installatietechniek", "& Zonen"), then the legal form.
const LEGAL_FORM_AFTER_Y = new RegExp(`(?:[ \\u00a0]+(?:&[ \\u00a0]+)?\\p{Lu}[\\p{L}'’-]{0,40}){0,3},?[ \\u00a0]+${LEGAL_FORM}(?![\\p{L}\\p{N}])`, 'uy');
const LEGAL_FORM_END = new RegExp(`(?:^|[ \\u00a0])${LEGAL_FORM}$`, 'u');
const ORGANISATION_HEADS = new Set(
  `Gemeente Stichting Vereniging Coöperatie Provincie Waterschap Gemeinde Stadt Stadtverwaltung Landkreis Verein Stiftung
  Ville Mairie Commune Association Fondation Council Foundation`.split(/\s+/),
);

function isOrganisation(text: string, start: number, end: number): boolean {
  const space = text.indexOf(' ', start);
  const first = text.slice(start, space < 0 || space > end ? end : space);
  if (ORGANISATION_HEADS.has(first)) return true;
  const before = wordBefore(text, start);
  if (before.word !== '' && ORGANISATION_HEADS.has(text.slice(before.at, before.at + before.word.length))) return true;
  const c = text.charCodeAt(end);
  if (c === 32 || c === 0xa0 || c === 44) {
    LEGAL_FORM_AFTER_Y.lastIndex = end;
    if (LEGAL_FORM_AFTER_Y.test(text)) return true;
  }
  return end - start > 3 && LEGAL_FORM_END.test(text.slice(Math.max(start, end - 8), end));
}

/**
 * Whether a value a key or column calls a name is an organisation's: a head noun first
 * ("Stichting De Regenboog", "Gemeente Utrecht") or a legal form last ("Jansen Installatietechniek
 * B.V."). "Ville" is a Finnish first name too: it leads a town's administration only before "de"
 * ("Ville de Lyon", not "Ville Virtanen").
 */
export function isOrganisationName(value: string): boolean {
  const space = value.search(/[ \u00a0]/);
  const head = space > 0 ? value.slice(0, space) : '';
  if (ORGANISATION_HEADS.has(head) && (head !== 'Ville' || /^Ville[ \u00a0]+d(?:e[ \u00a0]|['’])/u.test(value))) return true;
  return value.length > 3 && LEGAL_FORM_END.test(value.slice(-8));
}

// Capitalised nouns (German ones always are) that come before a surname without being part of the
// name: a trade or a business named after its owner, a doorbell, a letterbox.
const NOUNS_BEFORE_SURNAMES = new Set(
  `Firma Praxis Kanzlei Klingel Briefkasten Apotheke Autohaus Gasthof Gasthaus Hotel Restaurant Café Cafe Salon Studio Atelier
  Büro Werkstatt Garage Bakkerij Slagerij Kapsalon Boekhandel Fietsenmaker Schoenmaker Tandarts Huisarts Notaris Advocaat
  Makelaar Kantoor Winkel Drogisterij Apotheek Bäcker Metzger Friseur Schreiner Tischler Zahnarzt Hausarzt Notar Anwalt Makler
  Boulangerie Boucherie Pharmacie Cabinet Maison Garagiste Bakery Butcher Pharmacy Dentist Surgery Office Shop Store Morbus`.split(/\s+/),
);

// Imperatives that open a sentence before whom they are about: "Tell Hargreaves the report is
// late", "Bel Jansen even", "Frag Müller"; and the words a citation opens with ("See Smith et al.
// (2018)", "Unlike Smith (2018), we find", "Zie Bakker (2019)", "Siehe Müller (2018)"). Read as a first name, the verb went into the placeholder
// ("[PERSON_1] the report is late") and the model lost what to do; the surname alone is the person.
const VERBS_BEFORE_A_PERSON = new Set(
  `Tell Ask Call Phone Ring Text Email Mail Message Ping Remind Thank Inform Invite Meet Pay Send Cc Contact
  Bel Vraag Stuur Mail App Laat Bedank Informeer Herinner Betaal Ruf Frag Sag Schreib Schick Informier Erinnere Bezahl
  Appelle Appelez Demande Demandez Dis Dites Écris Écrivez Envoie Envoyez Rappelle Rappelez Préviens Prévenez
  See Cf Compare Unlike Following Cite Read Check Zie Vergelijk Siehe Vgl Voir`.split(/\s+/),
);

function isNounBeforeSurname(token: string): boolean {
  return NOUNS_BEFORE_SURNAMES.has(token) || /(?:erei|ung|heit|keit|schaft)$/.test(token);
}

const FAMILY_AFTER = /(?<![\p{L}])[Tt]he[ \u00a0]+((?:(?:[Vv]an|[Dd]e|[Vv]on|[Dd]er|[Ll]e)[ \u00a0]+)?\p{Lu}[\p{Ll}'’-]+(?:-\p{Lu}[\p{Ll}]+)?[ \u00a0]+)family(?![\p{L}])/gu;

// Vietnamese names are written surname first, then a middle name and the given name ("Nguyen Van
// Minh", "Tran Thi Lan", "Nguyễn Thị Hoa"); read in Western order, the given name alone was taken
// for a first name ("Nguyen Van [PERSON_1]") and the rest left. The fifteen commonest surnames
// carry some 90 % of Vietnamese people. Those that are words or names elsewhere ("Le", "Do", "Ho",
// "Vu", "Mai", "Ha", "Ly") lead a name only before a middle name of the list ("Le Van Hung", not
// "Ho Chi Minh City" or "Le Mans"); the others lead one before any short capitalised syllable.
const VN_DISTINCT = new Set(
  'Nguyen Nguyễn Tran Trần Pham Phạm Hoang Hoàng Huynh Huỳnh Phan Vũ Võ Đặng Bùi Đỗ Hồ Ngô Duong Dương Lê Lý Đinh Truong Trương Đào Đoàn Lương Trịnh Phùng'.split(' '),
);
const VN_SURNAMES = new Set([...VN_DISTINCT, ...'Le Do Ho Vu Vo Ly Dang Bui Ngo Dinh Dao Doan Luong Trinh Mai Cao Lam Lâm Ha Hà Ta Tạ'.split(' ')]);
const VN_MIDDLE = new Set(
  `Van Văn Thi Thị Duc Đức Minh Ngoc Ngọc Thanh Quoc Quốc Huu Hữu Xuan Xuân Hong Hồng Kim Dinh Đình Cong Công Gia Bao Bảo
  Anh Tuan Tuấn Quang Hoang Hoàng Thu Trung Tien Tiến Manh Mạnh Phuong Phương Thuy Thúy Bich Bích Khanh Khánh Hai Hải
  Nhu Như Diem Diễm Tuyet Tuyết My Mỹ Hoai Hoài Thuc Thục`.split(/\s+/),
);
/** A syllable of a Vietnamese given name: one short capitalised word that is no common word. */
function vnSyllableAt(text: string, i: number): string | null {
  const c = text.charCodeAt(i - 1);
  if (c !== 32 && c !== 0xa0) return null;
  const tok = tokenAt(text, i);
  // "Van" and "My" are words elsewhere, but between a Vietnamese surname and a given name they are middle names.
  return tok !== null && tok.length <= 7 && tok.indexOf('-') < 0 && tok !== tok.toUpperCase() && (VN_MIDDLE.has(tok) || !isNonNameWord(tok)) ? tok : null;
}

/** End of a Vietnamese name whose surname ends at `i` ("Nguyen| Van Minh"), or -1. */
function vietnameseName(text: string, i: number, distinct: boolean): number {
  if (text.charCodeAt(i) !== 32 && text.charCodeAt(i) !== 0xa0) return -1;
  const second = vnSyllableAt(text, i + 1);
  if (second === null) return -1;
  let end = i + 1 + second.length;
  if (!VN_MIDDLE.has(second)) return distinct ? end : -1;
  // A middle name, then the given name; a second middle name before it ("Nguyen Thi Thu Ha").
  for (let k = 0; k < 2; k++) {
    const next = vnSyllableAt(text, end + 1);
    if (next === null) break;
    end += 1 + next.length;
    if (!VN_MIDDLE.has(next)) break;
  }
  return end === i + 1 + second.length && !distinct ? -1 : end;
}

const FUSED_PARTICLES = new Set(['Vanden', 'Vander', 'Vande']);
const CAP_PARTICLE_FIRST = new Set([...FUSED_PARTICLES, 'Van', 'Von', 'De', 'Ter', 'Ten', 'Zu', 'Du', 'Le', 'La', 'Nic', 'Ní', 'Uí']);

const CONJUNCTION_Y = /[ \u00a0]+(?:and|en|und|et|&)[ \u00a0]+/uy;

export const personRecognizer: Recognizer = {
  type: 'PERSON',
  needsDigit: false,
  detect: findPersons,
};

// For the header reader (header-name.ts), which reads names in surname-first order with the same
// evidence as here.

/** Whether a token is a first name the lists know, as a name may write it ("Anne-Sophie", "JEAN"). */
export function isFirstNameToken(token: string): boolean {
  return knownFirst(token);
}

/** Whether a token is a surname the lists know, or one known by its form ("Petrović"). */
export function isSurnameToken(token: string): boolean {
  return isSurname(token);
}

/** Whether a capitalised word names a role, a department, a trade or an organisation ("Legal", "Support", "Praxis"). */
export function isRoleOrOrganisationWord(word: string): boolean {
  return ROLE_WORDS.has(word) || ORGANISATION_WORDS.has(word.toLowerCase()) || NOUNS_BEFORE_SURNAMES.has(word);
}
