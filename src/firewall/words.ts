// Capitalised words that are not names: function words that start sentences, months, weekdays,
// greetings and a few document words, in nl/en/fr/de. Used to keep such words out of person-name
// and street spans. Lower-case keys.

const LIST = `
a an and are as at be but by can could did do does for from had has have he her here his how i if in is it its
let may me might must my no not of on or our please she should so than thank thanks that the their them then there
these they this those to us was we were what when where which who why will with would yes you your hi hello hey dear
kind best regards cheers sincerely yours ok okay sure great good morning afternoon evening note re fw fwd subject
also just still only both each every all any some many more most other another such same new old first last next
de het een en of maar want dus dat die dit deze wie wat waar wanneer waarom hoe ik jij je u hij zij ze wij we jullie
mijn jouw uw zijn haar ons onze hun er hier daar als omdat toen dan nog al ook niet geen wel ja nee graag alvast
beste geachte hoi hallo dag goedemorgen goedemiddag goedenavond groeten groet vriendelijke met bedankt dank
op in aan bij naar van voor na om uit over onder tegen tot zonder door sinds volgens tijdens binnen buiten
der die das ein eine einer eines einem einen und oder aber denn sondern dass ob wenn weil als wie wo wer was wann
warum ich du er sie es wir ihr ihnen mein dein sein unser euer mich dich sich uns euch bitte danke ja nein nicht kein
keine auch noch schon nur sehr liebe lieber hallo guten tag morgen abend grüße gruß freundlichen viele herzliche
im am zum zur vom beim auf aus bei mit nach seit von zu gegen ohne um durch für über unter vor hinter neben zwischen
le la les un une des du de et ou mais donc or ni car que qui quoi dont où quand comment pourquoi je tu il elle on
nous vous ils elles mon ton son ma ta sa mes tes ses notre votre leur leurs ce cet cette ces oui non pas ne merci
bonjour bonsoir salut cher chère chers madame monsieur cordialement bien amitiés au aux en dans par pour sur sous
avec sans chez vers entre depuis pendant selon
january february march april may june july august september october november december
januari februari maart april mei juni juli augustus oktober
januar februar märz juni juli oktober dezember jänner
janvier février mars avril mai juin juillet août septembre octobre novembre décembre
monday tuesday wednesday thursday friday saturday sunday
maandag dinsdag woensdag donderdag vrijdag zaterdag zondag
montag dienstag mittwoch donnerstag freitag samstag sonntag sonnabend
lundi mardi mercredi jeudi vendredi samedi dimanche
today tomorrow yesterday vandaag morgen gisteren heute gestern aujourd'hui demain hier
name naam nom adres address adresse straße strasse street rue straat telefoon telefon phone email mail e-mail
team support service klantenservice kundenservice customer client kunde klant admin afdeling abteilung
german english french dutch belgian spanish italian british american european polish turkish moroccan
duits engels frans nederlands belgisch spaans italiaans brits amerikaans europees pools turks marokkaans
deutsch englisch französisch niederländisch belgisch spanisch italienisch britisch amerikanisch europäisch
allemand anglais français néerlandais belge espagnol italien britannique américain européen
under over after before about between into through during without within along across behind beyond near
since until upon via per against among around towards toward onto off out up down
den dem des ter ten te 't het del della di da du sur sous
mevrouw meneer mevr dhr heer mejuffrouw herr herrn frau fräulein mr mrs ms miss mx dr prof sir dame monsieur drs ir ing ds
madame mademoiselle mme mlle
company bedrijf firma société gmbh bv nv ltd inc sa sas sarl ag kg llc
iban bic swift bsn rekening rekeningnummer account konto compte
`;

export const NON_NAME_WORDS: ReadonlySet<string> = new Set(LIST.split(/\s+/).filter(Boolean));

export function isNonNameWord(token: string): boolean {
  return NON_NAME_WORDS.has(token.toLowerCase());
}

// Words that may start a street name even though they are function words elsewhere
// ("Van Baerlestraat", "Am Markt", "Op de Kamp", "In de Wolken", "Unter den Linden").
const STREET_LEADING = new Set(
  'van de den der het ter ten te am an im zum zur auf unter op aan in le la les du des sur sous'.split(' '),
);

export function isStreetLeadingWord(token: string): boolean {
  return STREET_LEADING.has(token.toLowerCase());
}
