// Texts made to be costly for the firewall, shared by its worst-case test
// (test/firewall/worst-case.test.ts) and its benchmark (bench/firewall.ts, section 3): runs of cue
// words and names, digit runs of many shapes for libphonenumber, postcodes, runs of punctuation and
// white space, very long tokens, many e-mail-like and IBAN-like fragments, and a mix. Each is a
// pattern repeated up to the size asked for.

function repeated(unit: string): (chars: number) => string {
  return (chars) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);
}

const UNITS: ReadonlyArray<readonly [string, string]> = [
  ['title + first name', 'Mr John '],
  ['nl title + first name', 'meneer Jan '],
  ['cue phrase + name', 'my name is John '],
  ['first + last name', 'John Smith '],
  ['unknown + known surname', 'Hanneke Kramer '],
  ['titles only', 'Mr Mrs Dr '],
  ['greeting cue', 'Dear '],
  ['label cue', 'Name: '],
  ['phone, compact', '0612345678 '],
  ['phone, in pairs', '06 12 34 56 78 '],
  ['digits with a phone cue', 'tel 1234567 '],
  ['bracketed trunk 0', '(0) '],
  ['country codes', '+31 6 '],
  ['card-like groups', '1234 5678 9012 3456 '],
  ['dates', '12-12-1985 '],
  ['dotted digits', '1.2.'],
  ['NL postcodes', '1234 AB '],
  ['postcode + town', '12345 Berlin '],
  ['IBAN-like', 'NL91ABNA '],
  ['IBAN prefixes', 'NL91 '],
  ['e-mail-like', 'a@b.'],
  ['e-mail addresses', 'x@example.com '],
  ['at signs', '@'],
  ['IPv6-like', 'ab:'],
  ['punctuation', '.,;:!?'],
  // Issue 23's rules: lower-case names, structure (JSON keys, CSV/Markdown rows, key-value lines,
  // code literals and SQL), streets without postcode, spelled-out e-mails, particles, travel words.
  ['lower-case names', 'jan jansen '],
  ['lower-case particles', 'de van de van der '],
  ['JSON keys', '{"name": "Jan", '],
  ['JSON keys, no values', '"name": '],
  ['CSV header and rows', 'name,phone\nJan,0612345678\n'],
  ['Markdown rows', '| Naam | Telefoon |\n'],
  ['key-value lines', 'Naam: jan\n'],
  ['open quotes', '"\'`a'],
  ['SQL values', "(name) VALUES ('Jan', "],
  ['street words + numbers', 'Kerkstraat 1 '],
  ['streets + towns', 'Kerkstraat 1 in Zeist, Kerkstraat 2, Ede in de a '],
  ['numbers + rue', '12 rue '],
  ['lower-case French streets', '12 rue de la paix de la paix de '],
  ['French type first', 'bd de la a b c 1 '],
  ['dwelling + French street', "j'habite au 3 cours de la a b "],
  ['labelled postcodes', 'PLZ 12345 '],
  ['spoken at/dot', 'a at b dot '],
  ['bracketed at', 'x(at)'],
  ['particle + verb', 'Von Berg schreibt '],
  ['travel words', 'naar Anna '],
  ['contact cue + initials', 'call J. de Vries mail A.B. Customs '],
  ['self-introductions', "ik ben Jansen I'm Fine ich bin Koch "],
  ['Spanish, Italian, Polish ids', 'DNI 12345678Z X1234567L RSSMRA85T10A562S 92030567893 '],
  // Reference-number labels (recognizers/reference.ts): a label before a digit, long values, spaced groups.
  ['reference labels', 'polisnummer 1 '],
  ['labels with long values', 'klantnummer 1-2-3-4-5-6-7-8-9-0-1-2-3-4-5-6-7 '],
  ['labels with spaced groups', 'Aktenzeichen 1 A 2 B 3 C 4 D 5 '],
  // Read decoded (url-encoded.ts): every token a URL with escapes; line breaks as "\r\n" and "\r" (line-breaks.ts).
  ['percent-encoded URLs', 'https://x.nl/?e=a%40b.nl&n=Jan+de+Vries '],
  ['escapes in a query', '?q=%41%40 '],
  ['escapes encoded twice', 'https://x.nl/?e=a%2540b.nl&t=%252B31%25206 '],
  ['CRLF address lines', 'Naam: Jan\r\nKerkstraat 1\r\n1234 AB Utrecht\r\n'],
  ['lone carriage returns', 'Groeten,\rJan\r'],
  // Left out of the view the recognizers read (line-breaks.ts): invisible characters inside values.
  ['invisible characters', 'Jan\u200bsen 06\u00ad12\u200d34 '],
  // QA6's rules: groups up to three spaces or a tab apart, lower-case streets before a postcode,
  // name-giving sentences, informal closings, child columns, comparisons and LIKE in code and SQL.
  ['wide-gapped groups', '1234  5678\t9012   3456  '],
  ['wide-gapped IBAN prefixes', 'DE89  3704\t'],
  ['lower-case street + postcode', 'kerkweg 4, 1234 ab '],
  ['lower-case English street + postcode', '14 elm grove road, bristol bs6 '],
  ['name-giving sentences', 'his name is jan de van '],
  ['informal closings', 'Groetjes,\nThanks so much,\n'],
  ['child columns', '| Ouder | Kind |\n'],
  ['comparisons and LIKE', "a === 'Jan' b !== \"x\" c NOT LIKE '%Jan%' "],
  // Several unquoted key=value pairs on a log line (structure.ts, logPairs).
  ['log lines of pairs', 'INFO first_name=Oliver last_name=Bennett email=o@b.nl country=GB\n'],
  // Mail header lines (header-name.ts) and UK addresses one part a line with an addressee (address.ts).
  ['mail header names', 'From: Jansen, Pieter (Org) <p.jansen@example.nl>, Smit, J. <j@x.nl>; '],
  ['UK address lines', 'J. Carter\n41 Kingsway\nCardiff\nCF10 3AN\n'],
  // Surname-first names without a mailbox, transcript speakers, subject cues, labels that name the
  // order (header-name.ts) and Dutch calling names in brackets (person.ts): one line each, or all on one.
  ['header names without mailboxes', 'Aan: Brouwer, Wouter; Visser, A. (Anouk); FONTAINE Élodie ; DE LA MOREAU Jean-Pierre\n'],
  ['headers on one line', 'Van: Hoekstra, Marieke Verzonden: maandag, To: Aan: Cc: Brouwer, Wouter Sent: To: \n'],
  ['transcript speakers', '[09:12 AM] Krause, Wolfgang: ok\n14:05 GIRARD Nicolas:\n'],
  ['subject cues', 'Onderwerp: RE: FW: dossier Visser klant de Vries Kunde dossier complaint about \n'],
  ['order labels', 'NAME, VORNAME: MÜLLER, SABINE ANNA MARIA Nom, prénom : '],
  ['calling names', 'K.J. (Kees) de Wit A.B.C.D.E.F.G. (HANS) VAN DER P. ('],
  // Spanish, Italian and Polish streets type first (street.ts, southTypeFirstBefore: words read back
  // from each number), dates listed after a birth cue (date-of-birth.ts), HTML form fields
  // (structure.ts, formFieldName: the tag read around each value), quoted keys with spaces, thanks
  // closings over a signature, second surnames.
  ['southern streets', 'Calle de la Piazza del Via de ul. Mayor 5, 31-019 Kraków '],
  // A capitalised southern type without a lead word: the words around each street are counted
  // (street.ts, southernAround, a bounded window per street).
  ['southern streets in prose', 'la Via Express 24 y el de Piazza Lattea 3 il '],
  ['listed birth dates', 'born on 3 May 2012 and 17.09.2015, 01/01/2000 und '],
  ['form fields', '<input name="last_name" value="Pearce" content="x" '],
  ['quoted keys with spaces', '"código postal" : "a b c d e f g h" : '],
  ['thanks closings', 'Merci !\nBonne Dank je wel,\nJavier Fernández Ruiz '],
  // Spanish, Italian and Polish phone numbers after their words and under their columns (phone-es-it-pl.ts, columns.ts).
  ['Spanish, Italian, Polish phone words', 'Mi número es 612 345 678 móvil 333.482.1956 numer 605123456 '],
  ['phone words without numbers', 'teléfono móvil cellulare komórka numer tel '],
  ['phone column headers', 'nombre;móvil\n'],
  // Licence plates after their labels and under their columns (licence-plate.ts), card codes after theirs (card.ts).
  ['plate labels', 'Kenteken: 12-ABC-3 registration AB12 reg no targa AB 1 '],
  ['plate column headers', 'naam;kenteken\n'],
  ['card code labels', 'CVV 123 security code 4821 CID 12 cvc: '],
  ['mixed', 'Mr John 0612345678 a@b.nl NL91ABNA0417164300 12-12-1985 ::1 Keizersgracht 1, 1015 CJ Amsterdam\n'],
];

export const ADVERSARIAL: ReadonlyArray<{ name: string; make: (chars: number) => string }> = [
  ...UNITS.map(([name, unit]) => ({ name, make: repeated(unit) })),
  { name: 'one digit run', make: (chars) => '7'.repeat(chars) },
  { name: 'one lower-case token', make: (chars) => 'a'.repeat(chars) },
  { name: 'one capitalised token', make: (chars) => 'A'.repeat(chars) },
  { name: 'spaces', make: (chars) => ' '.repeat(chars) },
  // No line break and no colon after the spaces: the cue's regex has to give up on each of them.
  { name: 'spaces after a sign-off', make: (chars) => `Best regards${' '.repeat(Math.max(0, chars - 13))}x` },
  { name: 'spaces after a cue', make: (chars) => `Naam${' '.repeat(Math.max(0, chars - 5))}x` },
  { name: 'spaces after a key', make: (chars) => `name${' '.repeat(Math.max(0, chars - 6))}:x` },
  { name: 'line breaks after a value', make: (chars) => `) values${'\n'.repeat(Math.max(0, chars - 9))}(` },
  { name: 'blanks under a table header', make: (chars) => `| Naam | Telefoon |\n|--${' '.repeat(Math.max(0, chars - 24))}x` },
  { name: 'one long line of cells', make: (chars) => `name,${'a,'.repeat(Math.ceil(chars / 2))}`.slice(0, chars) },
  // A quoted CSV cell is read to its closing quote: cells that open a quote and never close it, and
  // one cell of escaped quotes ("") to the end of the line.
  { name: 'quoted cells, never closed', make: (chars) => `name,phone\n${'"a,'.repeat(Math.ceil(chars / 3))}`.slice(0, chars) },
  // URL tokens up to the longest read decoded, all escapes.
  { name: 'longest encoded URLs', make: (chars) => repeated(`https://x.nl/?q=${'%41'.repeat(1355)} `)(chars) },
  // The same, every escape encoded three times: the most rounds of decoding.
  { name: 'longest URLs encoded three times', make: (chars) => repeated(`https://x.nl/?q=${'%252541'.repeat(580)} `)(chars) },
  // The longest log line read for pairs, all of it pairs.
  { name: 'longest log lines of pairs', make: repeated(`${'a=b '.repeat(499)}\n`) },
  // One phone column over the whole text, every row a number to read under its plans.
  { name: 'rows under a phone column', make: (chars) => `nombre;móvil\n${'Ana;612 345 678\n'.repeat(Math.ceil(chars / 16))}`.slice(0, chars) },
  { name: 'one quoted cell of "" pairs', make: (chars) => `name,phone\n"${'""'.repeat(Math.ceil(chars / 2))}`.slice(0, chars) },
  // Every slash a passenger's name ("SURNAME/GIVEN MRS"), and long runs of capitals between slashes.
  { name: 'passenger names, back to back', make: repeated('DE VRIES/ANNA MARIA MRS ') },
  { name: 'capitals between slashes', make: repeated(`${'A'.repeat(60)}/`) },
  // Escapes read as what they stand for (string-escapes.ts): every character one, or a run of backslashes.
  { name: 'escaped line breaks', make: repeated('\\n') },
  { name: 'escaped accented letters', make: repeated('\\u00e9') },
  { name: 'backslashes', make: (chars) => '\\'.repeat(chars) },
  // URL paths read for names (url-paths.ts) and XML elements read as keys (xml-elements.ts).
  { name: 'URL-like tokens', make: repeated('a.nl/b/ ') },
  { name: 'one URL of slashes', make: (chars) => `https://example.com${'/'.repeat(chars)}`.slice(0, chars) },
  { name: 'one host without end', make: (chars) => `${'a.'.repeat(Math.ceil(chars / 2))}`.slice(0, chars - 2) + '/x' },
  { name: 'name slugs', make: repeated('https://acme.nl/medewerkers/jeroen-brouwer ') },
  { name: 'profile URLs', make: repeated('linkedin.com/in/sanne-v ') },
  { name: 'dates with slashes', make: repeated('5/6/1982 ') },
  { name: 'nested tags', make: (chars) => `${'<a>'.repeat(Math.ceil(chars / 6))}x${'</a>'.repeat(Math.ceil(chars / 8))}`.slice(0, chars) },
  { name: 'fields of a record', make: repeated('<FirstName>Dorothea</FirstName>') },
  { name: 'fields without records', make: repeated('<naam>x</naam>\n') },
  { name: 'start tags never closed', make: repeated('<FirstName x="1" ') },
  { name: 'one start tag of attributes', make: (chars) => `<Person ${'firstName="a" '.repeat(Math.ceil(chars / 14))}`.slice(0, chars) },
  { name: 'open brackets', make: (chars) => '<'.repeat(chars) },
];
