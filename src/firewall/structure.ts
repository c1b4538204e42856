// Structure-aware detection: in data people paste — JSON (whole, embedded in prose or in a code
// block), CSV/TSV with a header row, Markdown tables, key-value lines ("Naam: …", "name=…"), code
// and SQL literals — the key or column header says what its values are. A value under a key that
// names personal data ("voornaam", "last_name", "telefon", "iban", "date de naissance" …) is masked
// as that type without any other evidence; a cell under a key that names something else (a
// product, a SKU, a warehouse) does not count as a name on the strength of the gazetteer alone.
//
// Only the values themselves are reported, so that masking keeps the structure exactly: a masked
// JSON text stays valid JSON (a placeholder replaces characters inside a string), a CSV keeps its
// separators and columns.
//
// Cost: every step is one pass over the text or over one line: lines are found with indexOf,
// string literals by scanning for their closing quote on the same line (at most MAX_CELL
// characters), and the key before a literal is read backwards over at most KEY_MAX characters.
// Every regex here has bounded repetitions or runs over one bounded line: linear in the text.
import { digitCount } from './checksums.js';
import { isKnownFirstName, isKnownFirstNameLower, isKnownLastName, isKnownLastNameLower } from './gazetteer/index.js';
import type { Detection, EntityType } from './types.js';
import { referenceValue } from './recognizers/reference.js';
import { isRoleMailbox } from './recognizers/email.js';
import { isAmbiguousFirstName, isOrganisationName, leadingTitleLength } from './recognizers/person.js';
import { isNonNameWord } from './words.js';

/**
 * What a key names: an entity type, a name ("name" alone: needs the value to look like one), a
 * child (a column header only: needs a known first name, see CHILD_COLUMNS), a postcode alone
 * under a key that is also a word ("CAP": only a postcode's shape is one), a thing that is not
 * personal, or the name of something the key does not say ("NAMED": "venue_name", a person's only
 * when the value holds a name the lists know).
 */
type KeyKind = EntityType | 'NAME' | 'CHILD' | 'THING' | 'POSTCODE' | 'NAMED';

// Keys, normalised (see normaliseKey): lower case, accents off, ß as ss, nothing but letters and digits.
const KEYS: Array<[KeyKind, string]> = [
  [
    'PERSON',
    'firstname firstnames givenname givennames forename forenames lastname lastnames surname surnames familyname fullname middlename maidenname ' +
      'voornaam voornamen achternaam roepnaam geboortenaam meisjesnaam tussenvoegsel volledigenaam ' +
      'vorname vornamen nachname familienname geburtsname vollstandigername ' +
      'prenom prenoms nomdefamille nomdenaissance nomdusage nomcomplet ' +
      'accountholder kontoinhaber kontoinhaberin rekeninghouder titulaire tenaamstelling tnv ' +
      'contactpersoon contactperson ansprechpartner ansprechpartnerin personnecontact ' +
      // Who reports an offence, on a police report's form.
      'aangever aangeefster anzeigeerstatter anzeigeerstatterin ' +
      'aanvrager antragsteller antragstellerin demandeur ' +
      // Spanish, Italian and Polish: "apellidos", "cognome", "nazwisko", "imię" (before, their values
      // were sent in clear beside a masked DNI or codice fiscale).
      'apellido apellidos primerapellido segundoapellido nombrecompleto nombreyapellidos nombreyapellido ' +
      'cognome nomecompleto nomeecognome cognomeenome imie imiona imieinazwisko nazwisko nazwiskoiimie titular intestatario ' +
      // Portuguese: "sobrenome", "apelido" (a surname in Portugal), "primeiro nome" (QA 2026-11-27c: sent in clear beside a masked "nome").
      'sobrenome sobrenomes apelido apelidos primeironome ultimonome nomeproprio nomesproprios',
  ],
  [
    'NAME',
    'name naam nom fullname klant kunde kundin client customer customername clientname klantnaam kundenname nomduclient ' +
      'contact kontakt patient patientin patiente employee mitarbeiter mitarbeiterin medewerker werknemer salarie ' +
      'recipient ontvanger empfanger destinataire sender afzender absender expediteur author auteur autor owner eigenaar inhaber proprietaire ' +
      'user gebruiker benutzer utilisateur member lid mitglied membre person persoon personne ' +
      'attendee attendees participant participants deelnemer deelnemers teilnehmer teilnehmerin teilnehmende guest gast invitee invite ' +
      'tenant huurder mieter mieterin locataire resident bewoner bewohner bewohnerin habitant occupant ' +
      'parent ouder elternteil pupil leerling schuler schulerin eleve student studentin etudiant etudiante ' +
      'driver chauffeur fahrer fahrerin applicant sollicitant bewerber bewerberin candidat candidate beneficiary begunstigde beneficiaire ' +
      // Who approved, reviewed or signed, as a review's or a form's line writes it ("Approved by: Jansen, Pieter").
      'approvedby signedby reviewedby checkedby goedgekeurddoor ondertekenddoor gecontroleerddoor genehmigtvon unterschriebenvon gepruftvon approuvepar validepar signepar ' +
      // Insurance roles: the people on a policy or a claim, and who handles it.
      'verzekeringnemer polishouder verzekerde begunstigden schadebehandelaar behandelaar tussenpersoon ' +
      'policyholder insured insuredperson beneficiaries claimant handler claimhandler claimshandler ' +
      'versicherungsnehmer versicherungsnehmerin versicherte versicherter begunstigte begunstigter sachbearbeiter sachbearbeiterin ' +
      'preneur preneurdassurance assure assuree souscripteur souscriptrice gestionnaire ' +
      // "nombre", "nome" alone are "name" (French "nombre" is a count: a value must look like a name).
      'nombre nome cliente klient paciente paziente pacjent empleado dipendente pracownik',
  ],
  ['EMAIL', 'email emails emailaddress emailadres mail mailadres mailadresse courriel adressemail adresseemail emailadresse correo correoelectronico postaelettronica pocztaelektroniczna enderecoeletronico enderecodeemail correioeletronico'],
  [
    'PHONE',
    'phone phonenumber telephone telephonenumber tel telnr tel1 tel2 mobile mobilephone mobilenumber cell cellphone ' +
      'telefoon telefoonnummer mobiel mobielnummer gsm telefon telefonnummer mobil mobilnummer handy handynummer ' +
      'telephoneportable portable numerodetelephone fixe fax ' +
      'telefono telefonomovil movil celular cellulare numerodetelefono numeroditelefono numerotelefono numertelefonu komorka telefonkomorkowy ' +
      'telemovel telefone numerodetelemovel numerodetelefone telefonecelular',
  ],
  ['IBAN', 'iban ibannumber bankaccount accountnumber account rekeningnummer rekening bankrekening bankrekeningnummer kontonummer bankverbindung konto rib comptebancaire sortcodeaccount'],
  [
    'ADDRESS',
    'address address1 address2 addressline addressline1 addressline2 streetaddress street adres straat straatnaam woonadres ' +
      'adresse anschrift strasse strassehausnummer rue voie ' +
      'postcode postalcode zip zipcode plz postleitzahl codepostal cp ' +
      'city town woonplaats plaats stad ort wohnort stadt ville localite commune gemeente ' +
      // Spanish, Italian and Polish address, street, postcode and town keys ("via" is not one: it is
      // as often a carrier or a channel, "via": "email").
      'direccion domicilio calle indirizzo residenza ulica codigopostal kodpocztowy ciudad localidad poblacion citta localita comune miasto miejscowosc ' +
      // A place of birth is a town as personal as a home's ("luogo_di_nascita": "Roma" was sent).
      // Portuguese: "morada", "endereço", "código postal" (above), "localidade", "cidade".
      'morada endereco enderecocompleto moradacompleta localidade cidade concelho freguesia ' +
      'naturalidade localdenascimento ' +
      'placeofbirth birthplace cityofbirth geboorteplaats geburtsort lieudenaissance lugardenacimiento luogodinascita comunedinascita miejsceurodzenia',
  ],
  ['POSTCODE', 'cap'],
  [
    'DATE_OF_BIRTH',
    'dob dateofbirth birthdate birthday born geboortedatum geboren geb gebdatum geburtsdatum geburtstag gebdat datedenaissance datenaissance naissance nele ' +
      'fechadenacimiento fechanacimiento fechanac datadinascita datanascita dataurodzenia datadenascimento datanascimento datanasc',
  ],
  ['BSN', 'bsn burgerservicenummer sofinummer'],
  ['STEUER_ID', 'steuerid steueridentifikationsnummer idnr steuerliche taxid'],
  ['NIR', 'nir nsecu numerosecu secu numerodesecuritesociale securitesociale insee numerosecuritesociale'],
  ['BE_NATIONAL_NUMBER', 'rijksregisternummer rijksregisternr rrnr insznummer numeronational registrenational nationalnumber insz'],
  ['NINO', 'nino ninumber nationalinsurance nationalinsurancenumber nationalinsuranceno'],
  ['NHS_NUMBER', 'nhs nhsnumber nhsno nhsnr chi chinumber chino'],
  [
    'ID_NUMBER',
    'ssn socialsecurity socialsecuritynumber socialsecurityno passport passportnumber passportno idcardnumber nationalid nationalidnumber ' +
      'driverslicense driverslicence driverslicensenumber drivinglicence drivinglicencenumber licensenumber ' +
      'paspoort paspoortnummer identiteitskaartnummer rijbewijsnummer documentnummer ' +
      'reisepass reisepassnummer passnummer ausweisnummer personalausweisnummer sozialversicherungsnummer svnummer rentenversicherungsnummer fuehrerscheinnummer führerscheinnummer ' +
      'passeport numerodepasseport',
  ],
  ['DNI', 'dni nie numerodni numerodnie documentonacionaldeidentidad'],
  ['CODICE_FISCALE', 'codicefiscale'],
  ['PESEL', 'pesel numerpesel'],
  ['CARD', 'card cardnumber creditcard kaartnummer kartennummer numerodecarte carte'],
  [
    'CUSTOMER_REF',
    'polis polisnummer polisnr verzekeringsnummer schadenummer schadenr schadedossier klantnummer klantnr relatienummer lidnummer ' +
      'dossiernummer dossiernr contractnummer contractnr clientnummer ' +
      'policy policynumber policyno policynr policyid claimnumber claimno claimid customernumber customerno customerid ' +
      'clientnumber clientno contractnumber contractno membershipnumber membernumber casefilenumber ' +
      'police policennummer polizzennummer versicherungsnummer versicherungsscheinnummer vertragsnummer schadennummer ' +
      'kundennummer kundennr mitgliedsnummer aktenzeichen ' +
      'numerodepolice numerodecontrat numeroclient numerodeclient numerodedossier numerodesinistre numerodadherent referenceclient',
  ],
  [
    'THING',
    'product producten produkt produit article artikel artikelen item items sku ean gtin model modell modele brand merk marke marque ' +
      'title titel titre warehouse magazijn lager entrepot location locatie standort lieu store winkel geschaft magasin ' +
      'producto prodotto articulo articolo ' +
    'category categorie kategorie service app application package project projet projekt repo repository database db table host ' +
      'server bucket queue topic region environment env branch job task script module component',
  ],
];

// Column headers that name children ("| Ouder | Kind |", "kind;groep;allergie", "| Parent | Child |",
// "Elternteil | Kind"): a school's or a club's list. They count only as a table's column, and a cell
// under one is a name only when it holds a first name the lists know: "kind" is also English for a
// type ("kind: Deployment", a "Kind" column of "Bug", "Feature"), "children" a React prop, and a
// "Parent | Child" table may be a tree of nodes.
const CHILD_COLUMNS = new Set(
  'kind kinderen kinder kindes child children enfant enfants kid kids zoon dochter sohn tochter'.split(' '),
);

function isChildColumn(key: string): boolean {
  return key.length <= 48 && CHILD_COLUMNS.has(normaliseKey(key));
}

// Keys that make a generic "name" column a product's or a system's name: a table or an object
// with one of these around it is about things, not people.
const THING_CONTEXT = new Set(
  ('sku ean gtin price prijs preis prix stock voorraad bestand quantity qty aantal menge quantite colour color kleur farbe couleur ' +
    'size maat grosse taille version versie port replicas timeout timeoutms loglevel debug enabled target module strict region ' +
    'precio prezzo cena cantidad quantita ilosc existencias giacenza talla taglia rozmiar colore kolor marca ' +
    // A build's coordinates (a Maven pom's <groupId>, <artifactId>, <packaging>).
    'groupid artifactid packaging')
    .split(' ')
    .map((k) => normaliseKey(k)),
);

const KEY_KIND = new Map<string, KeyKind>();
for (const [kind, words] of KEYS) for (const w of words.split(/\s+/)) if (w) KEY_KIND.set(w, kind);

// Suffixes that name the type inside a longer key ("customer_email", "contact_phone", "billing_iban").
const SUFFIXES: Array<[string, KeyKind]> = [
  ['firstname', 'PERSON'],
  ['lastname', 'PERSON'],
  ['surname', 'PERSON'],
  ['fullname', 'PERSON'],
  ['voornaam', 'PERSON'],
  ['achternaam', 'PERSON'],
  ['vorname', 'PERSON'],
  ['nachname', 'PERSON'],
  ['prenom', 'PERSON'],
  ['email', 'EMAIL'],
  ['mail', 'EMAIL'],
  ['phone', 'PHONE'],
  ['telefoon', 'PHONE'],
  ['telefon', 'PHONE'],
  ['mobile', 'PHONE'],
  ['iban', 'IBAN'],
  ['address', 'ADDRESS'],
  ['adres', 'ADDRESS'],
  ['adresse', 'ADDRESS'],
  ['postcode', 'ADDRESS'],
  ['zipcode', 'ADDRESS'],
  ['dob', 'DATE_OF_BIRTH'],
  ['birthdate', 'DATE_OF_BIRTH'],
  ['dateofbirth', 'DATE_OF_BIRTH'],
  ['geboortedatum', 'DATE_OF_BIRTH'],
  ['geburtsdatum', 'DATE_OF_BIRTH'],
  ['name', 'NAME'],
  ['naam', 'NAME'],
  ['polisnummer', 'CUSTOMER_REF'],
  ['klantnummer', 'CUSTOMER_REF'],
  ['kundennummer', 'CUSTOMER_REF'],
  ['policynumber', 'CUSTOMER_REF'],
  ['customernumber', 'CUSTOMER_REF'],
  ['contractnummer', 'CUSTOMER_REF'],
  ['vertragsnummer', 'CUSTOMER_REF'],
  ['dossiernummer', 'CUSTOMER_REF'],
  ['schadenummer', 'CUSTOMER_REF'],
  ['claimnumber', 'CUSTOMER_REF'],
  ['apellido', 'PERSON'],
  ['apellidos', 'PERSON'],
  ['cognome', 'PERSON'],
  ['nazwisko', 'PERSON'],
  ['correo', 'EMAIL'],
  ['telefono', 'PHONE'],
  ['cellulare', 'PHONE'],
  ['direccion', 'ADDRESS'],
  ['indirizzo', 'ADDRESS'],
  ['sobrenome', 'PERSON'],
  ['telemovel', 'PHONE'],
  ['telefone', 'PHONE'],
  ['morada', 'ADDRESS'],
  ['endereco', 'ADDRESS'],
];

// "naam" / "name" / "nom" and a connecting word before a role ("naamverzekerde", "namedesversicherungsnehmers").
const NAME_OF = ['naam', 'naamvan', 'naamvande', 'name', 'nameof', 'nameofthe', 'namedes', 'nameder', 'nom', 'nomde', 'nomdela', 'nomdel', 'nomdu', 'nomdes', 'nombre', 'nombrede', 'nombredel', 'nome', 'nomedel', 'nomedella'];

// Keys that start with a reference number's key ("polisnummerklant").
const REFERENCE_PREFIXES = ['polisnummer', 'klantnummer', 'kundennummer', 'policynumber', 'customernumber', 'contractnummer', 'vertragsnummer', 'dossiernummer', 'schadenummer', 'claimnumber'];

/** Lower case, accents off, ß as ss, only letters and digits: "First Name", "first_name", "firstName" → "firstname". */
export function normaliseKey(key: string): string {
  let ascii = '';
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c >= 97 && c <= 122) ascii += key[i];
    else if (c >= 65 && c <= 90) ascii += String.fromCharCode(c + 32);
    else if (c >= 48 && c <= 57) ascii += key[i];
    else if (c > 127) return normaliseUnicode(key);
  }
  return ascii;
}

function normaliseUnicode(key: string): string {
  return key
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^a-z0-9]/g, '');
}

/** What a key (a JSON key, a column header, a label) names, or null. Keys are short: at most 48 characters are read. */
export function keyKind(key: string): KeyKind | null {
  if (key.length === 0 || key.length > 48) return null;
  const cached = kindCache.get(key);
  if (cached !== undefined) return cached;
  // Bounded: a text of many distinct labels must not grow the cache without end.
  if (kindCache.size >= KIND_CACHE_SIZE) kindCache.clear();
  const kind = lookUpKey(key);
  kindCache.set(key, kind);
  return kind;
}

const kindCache = new Map<string, KeyKind | null>();
const KIND_CACHE_SIZE = 4096;

// A possessive before a label says whose the value is, not what it is: "Mon NIR : 1 85 05 …",
// "Mijn BSN: …", "My IBAN: …" label the same values as "NIR :", "BSN:", "IBAN:" (QA 2026-11-27: a
// NIR with a mistyped key went out in clear after "Mon NIR :", and was masked after "NIR :").
const POSSESSIVE_BEFORE_KEY = /^(?:my|your|our|his|her|their|mijn|uw|je|jouw|zijn|haar|ons|onze|hun|mein|meine|dein|deine|ihr|ihre|unser|unsere|sein|seine|mon|ma|mes|ton|ta|votre|notre|son|sa|mi|su|tu|il mio|la mia|mio|mia|moj|moja|moje|mój)[ \u00a0]+(?=\S)/iu;

const MACHINE_ADDRESS_KEYS = new Set(
  ('ipaddress ipadres ipadresse adresseip ipv4address ipv6address ipv4adres ipv6adres macaddress macadres macadresse ' +
    'webaddress webadres webadresse serveraddress serveradres serveradresse hostaddress hostadres mailserveradres ' +
    'gatewayaddress gatewayadres proxyaddress proxyadres remoteaddress localaddress bindaddress listenaddress')
    .split(' '),
);

function lookUpKey(key: string): KeyKind | null {
  const k = normaliseKey(key);
  if (k.length === 0) return null;
  const exact = KEY_KIND.get(k);
  if (exact !== undefined) return exact;
  // A machine's address ("IP-adres: 10.0.0.1", "Webadres:", "Serveradres:") is no home's: the
  // "adres" ending made it one, and the rest of the line went with it (QA). The IP recognizer still
  // masks an IP address under it.
  for (const machine of MACHINE_ADDRESS_KEYS) if (k.endsWith(machine)) return null;
  const possessive = POSSESSIVE_BEFORE_KEY.exec(key);
  if (possessive !== null) {
    const owned = KEY_KIND.get(normaliseKey(key.slice(possessive[0].length)));
    if (owned !== undefined) return owned;
  }
  for (const [suffix, kind] of SUFFIXES) {
    if (k.length > suffix.length && k.endsWith(suffix)) return kind === 'NAME' ? nameKeyKind(k.slice(0, -suffix.length)) : kind;
  }
  // "Naam verzekerde", "Name des Versicherungsnehmers", "Nom de l'assuré": the name of a role.
  for (const prefix of NAME_OF) {
    if (k.length < prefix.length + 4 || !k.startsWith(prefix)) continue;
    const rest = k.slice(prefix.length);
    const kind = KEY_KIND.get(rest) ?? KEY_KIND.get(rest.replace(/s$/, ''));
    // "Naam kind", "Name des Kindes", "Nom de l'enfant": a child's name, with the key to say so.
    if (kind === 'NAME' || kind === 'PERSON' || CHILD_COLUMNS.has(rest)) return 'PERSON';
  }
  // "Polisnummer klant", "klantnummer_oud": a reference number's key that says whose it is.
  for (const prefix of REFERENCE_PREFIXES) if (k.length > prefix.length && k.startsWith(prefix)) return 'CUSTOMER_REF';
  return null;
}

// What a "<thing>_name" key names (QA 2026-11-27: "company_name": "Acme Holdings", "product_name",
// "bank_name", "file_name", "event_name", "service_name" were masked as people). The word before
// "name" says whose name it is: a person's or a role's ("customer_name", "contact_name",
// "holder_name", "display_name" — a user's display name is the person's name in the systems people
// paste from, and a group's is kept by the group words — "user_name"), a thing's, or one we do not
// know, where only a name the lists know makes the value a person's.
const PERSON_NAME_PREFIX =
  /(?:user|customer|client|contact|klant|kunde|patient|owner|member|person|guest|employee|tenant|display|holder|cardholder|account|card|nick|given|family|legal|birth|real|preferred|printed|sender|recipient|author|signer|signatory|buyer|seller|student|pupil|teacher|parent|child|kid|mother|father|spouse|partner|husband|wife|driver|passenger|traveller|traveler|applicant|beneficiary|insured|claimant|manager|supervisor|assignee|reporter|requester|approver|reviewer|agent|rep|representative|doctor|physician|nurse|dentist|caller|visitor|attendee|participant|speaker|candidate|consignee|shipper|addressee|billing|shipping|emergency|next(?:of)?kin|guardian|witness|landlord|lessee|lessor|debtor|creditor|payer|payee|deelnemer|ouder|kind|moeder|vader|mieter|vermieter|eltern|mutter|vater|locataire|proprietaire|titulaire|empleado|paciente|dipendente|paziente|pracownik|pacjent)$/;
const THING_NAME_PREFIX =
  /(?:company|companies|business|org|organisation|organization|bank|brand|product|item|article|file|filename|folder|dir|directory|path|document|doc|report|sheet|tab|team|group|dept|department|event|service|app|application|project|repo|repository|package|module|class|function|method|variable|var|field|column|table|schema|database|db|index|host|hostname|server|cluster|node|pod|container|image|volume|bucket|queue|topic|stream|channel|branch|tag|label|key|secret|token|role|policy|permission|plan|tier|product|sku|model|device|machine|vm|instance|region|zone|site|domain|url|link|page|route|endpoint|api|job|task|step|stage|pipeline|workflow|campaign|course|program|programme|series|show|track|album|song|book|game|level|category|type|kind|status|state|country|language|locale|currency|venue|room|building|store|shop|restaurant|hotel|school|university|hospital|clinic|vendor|supplier|merchant|carrier|airline|provider|network|wifi|ssid|device|printer|template|theme|plugin|extension|font|color|colour|unit|metric|measure|dimension|feature|flag|setting|config|option|param|parameter|attribute|property|object|entity|resource|asset|dataset|layer|map|format|mime|content|firma|bedrijf|bedrijfs|unternehmen|firmen|societe|entreprise|empresa|azienda|produkt|produit|producto|prodotto|artikel)$/;

/** The kind of a key that ends in "name" or "naam" after `prefix` (normalised). */
function nameKeyKind(prefix: string): KeyKind {
  const known = KEY_KIND.get(prefix);
  if (known === 'NAME' || known === 'PERSON' || CHILD_COLUMNS.has(prefix) || PERSON_NAME_PREFIX.test(prefix)) return 'NAME';
  // "city_name", "street_name": the place the prefix's key names.
  if (known === 'ADDRESS') return 'ADDRESS';
  if (known === 'THING' || THING_NAME_PREFIX.test(prefix)) return 'THING';
  return 'NAMED';
}

/**
 * Whether keys (a table's header, an object's keys) say the names under them are things': one of
 * them is about things ("price", "sku", "version"), and none names personal data ("email",
 * "phone", "customer", "owner"), which puts a person in the record whatever else it holds.
 */
function aboutThings(keys: Iterable<string>): boolean {
  let things = false;
  for (const key of keys) {
    if (isPersonalKey(key)) return false;
    if (!things && isThingContext(key)) things = true;
  }
  return things;
}

function isPersonalKey(key: string): boolean {
  if (key.length > 48) return false;
  const kind = keyKind(key);
  if (kind === null || kind === 'THING' || kind === 'NAMED') return false;
  if (kind !== 'NAME') return true;
  // A role ("customer", "owner", "klant") or a person's name key ("customer_name"); not "name"
  // alone, nor "product_name".
  const k = normaliseKey(key);
  return (KEY_KIND.get(k) === 'NAME' && !GENERIC_NAME_KEYS.has(k)) || namesAPerson(key);
}

// "first" and "last" alone are a list's or a page's ("?first=10", "last": "2024-11-01"); side by side
// in one object or query they are a person's first name and surname
// ({"customer":{"first":"Eva","last":"Dekker"}}, "?first=Lieke&last=Mulder"; QA 2026-11-27c: sent in
// clear). Typed as a name the lists know ("NAMED").
const PAIRED_NAME_KEYS = new Map([
  ['first', 'last'],
  ['last', 'first'],
  ['given', 'family'],
  ['family', 'given'],
]);

/** 'NAMED' when `key` is "first" or "last" and `keys` (its object's or query's) hold its partner, else null. */
function pairedKind(key: string, keys: Iterable<string> | undefined): KeyKind | null {
  if (key.length > 8 || keys === undefined) return null;
  const partner = PAIRED_NAME_KEYS.get(normaliseKey(key));
  if (partner === undefined) return null;
  for (const k of keys) if (k.length <= 8 && normaliseKey(k) === partner) return 'NAMED';
  return null;
}

const GENERIC_NAME_KEYS = new Set(['name', 'naam', 'nom', 'nombre', 'nome']);
const SOUTHERN_NAME_KEYS = new Set(['nombre', 'nome']);

function isBareNameKey(key: string): boolean {
  return key.length <= 48 && GENERIC_NAME_KEYS.has(normaliseKey(key));
}

export function isThingContext(key: string): boolean {
  return key.length <= 48 && (THING_CONTEXT.has(normaliseKey(key)) || KEY_KIND.get(normaliseKey(key)) === 'THING');
}

// One to five words, or "Surname, First" as a list or a CSV cell writes it ("Jansen, Pieter", "de Vries, Anna").
const NAME_VALUE = /^[\p{L}][\p{L}'’.-]*(?:[ \u00a0]+[\p{L}][\p{L}'’.-]*){0,4}(?:,[ \u00a0]*[\p{L}][\p{L}'’.-]*(?:[ \u00a0]+[\p{L}][\p{L}'’.-]*){0,3})?$/u;
const CAPITALISED_WORD = /^\p{Lu}/u;

const NAME_PARTICLES = new Set('van de den der het ter ten te von zu du le la des di da del della dos do'.split(' '));

// Words that make a value under a role a group of people, not one person, in the four languages.
const GROUP_WORDS = new Set(
  ('team teams squad squads group groups groep gruppe groupe equipe équipe platform plattform plateforme ops devops sre infra ' +
    'infrastructure guild chapter tribe crew unit afdeling abteilung departement département department dept desk board ' +
    'committee support helpdesk servicedesk backoffice engineering sales marketing finance legal hr operations procurement ' +
    'emea apac amer latam benelux dach nordics').split(' '),
);

/** Whether `value` can be a person's name under a key that says so (`specific`) or under "name" alone. */
function looksLikeName(value: string, specific: boolean): boolean {
  if (value.length < 2 || value.length > 80 || !NAME_VALUE.test(value)) return false;
  if (specific) return true;
  const words = value.split(/[ ,\u00a0]+/);
  if (words.length === 1 && isNonNameWord(words[0]!)) return false;
  // "Platform Team", "Data Squad", "Billing Ops" under an owner key or column: a team owns it.
  if (words.some((w) => GROUP_WORDS.has(w.toLowerCase()))) return false;
  // "Team Atlas", "Support NL" under an owner column: a word that is no name, leading (particles aside).
  if (isNonNameWord(words[0]!) && !NAME_PARTICLES.has(words[0]!.toLowerCase())) return false;
  const capital = (w: string) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase();
  if (words.some((w) => isKnownFirstName(capital(w)) || isKnownLastName(capital(w)))) return true;
  // Unknown words: a name when written as one, every word capitalised (particles aside).
  return words.every((w) => CAPITALISED_WORD.test(w) || w.length <= 3);
}

// A field's description where its value would be: a tool's schema says "Recipient: teammate name",
// a form "Sender: your name", "first_name: your first name", "To: name of the recipient", "Name des
// Empfängers". Lower-case words around the word "name" hold no one's name (before, masked as
// "[PERSON_1]", and the model lost what to write there).
const PLACEHOLDER_NAME =
  /^(?:[\p{Ll}'’-]+[ \u00a0]+){0,4}(?:name|names|naam|namen|nom|noms|username|[Nn]ame[ \u00a0]+(?:des|der|von)[ \u00a0]+\p{L}+)(?:[ \u00a0]+(?:of|van|de|du|des|here|hier)(?:[ \u00a0]+[\p{Ll}'’-]+){1,3})?$/u;

function isPlaceholderName(value: string): boolean {
  if (value.length > 60 || !PLACEHOLDER_NAME.test(value)) return false;
  // "jan de naam": a first name before it makes the word a surname.
  return !value.split(/[ \u00a0]+/).some((w) => w.length > 1 && !isNonNameWord(w) && isKnownFirstName(w.charAt(0).toUpperCase() + w.slice(1)));
}

// What a generic "name" key ("name", "naam", "nom") names when it is no person's (QA 2026-11-27c):
// a CI step, an Ansible task, a report, an office. `- name: Install dependencies`, `name: Deploy to
// production`, `Name: Quarterly Sales Report`, `Naam: Kantoor Utrecht` were read as a name after the
// cue "name:", often only their first word ("[PERSON_1] dependencies"). Such a value is a thing's
// name unless it is shaped as a person's (a first name the lists know, then a surname): when it
// opens with a verb of a step, holds lower-case words that are no particles, holds a word of a
// thing, or stands beside keys that say what kind of thing it is.
const STEP_VERBS = new Set(
  ('install run deploy build ensure create setup set configure check lint test tests test-run publish upload download cache restore ' +
    'start stop restart update upgrade add remove delete copy move login logout push pull checkout clone fetch generate compile ' +
    'package release notify send validate verify wait apply format migrate seed clean prepare get use print show enable disable ' +
    'make bump tag sign scan archive extract unzip zip mount install-deps import export sync backup provision bootstrap init ' +
    'initialize initialise trigger schedule cleanup teardown lint-check audit analyze analyse report collect compress render ' +
    'installeer installeren draai bouw maak controleer kopieer verwijder start herstart installiere baue erstelle prüfe ' +
    'installer construire lancer vérifier créer copier supprimer déployer').split(/\s+/),
);
const THING_WORDS = new Set(
  ('report rapport bericht overview overzicht dashboard summary samenvatting übersicht office kantoor büro buro bureau vestiging filiaal ' +
    'branch hq headquarters hoofdkantoor campus building gebouw room zaal vergaderzaal meetingroom warehouse magazijn depot store shop ' +
    'winkel project projekt projet plan budget forecast meeting vergadering sprint release roadmap pipeline workflow job task step ' +
    'service server cluster database api app bot script module package library template form formulier page site website portal ' +
    'list lijst board agenda calendar kalender folder map document sheet spreadsheet file bestand account group channel kanaal ' +
    'quarterly annual monthly weekly daily jaarlijks maandelijks wekelijks dagelijks sales verkoop omzet revenue invoice factuur ' +
    'production staging development test tests build deploy deployment nightly backup policy beleid rule regel config settings').split(/\s+/),
);
// Keys beside a "name" that say what kind of thing it names (a record of people has a type too:
// "Name: Lisa" beside "Type: employee" is a person, so only a name that is also a word or a place,
// "Victoria", "Florence", or no first name at all, is a thing's beside them).
const KIND_SIBLINGS = new Set('type kind category categorie typ tipo soort art genre class klasse'.split(' '));
// Keys beside a "name" that say it names a thing: a place's facts, a CI step's or a playbook's
// fields, a manifest's.
const THING_SIBLINGS = new Set(
  ('population inwoners einwohner country land pays state province ' +
    'provincie region regio lat lon lng latitude longitude coordinates capital hoofdstad timezone area ' +
    'steps uses run runs-on with script shell command commands cmd hosts tasks roles handlers become when register loop notify ' +
    'image container ports volumes services stage stages needs jobs apiversion metadata spec replicas selector schedule cron ' +
    'trigger triggers action actions args arguments entrypoint working-directory if continue-on-error timeout-minutes strategy ' +
    'matrix version dest src apt yum pip npm ansible.builtin.apt ansible.builtin.service ansible.builtin.copy ansible.builtin.template ' +
    'ansible.builtin.shell ansible.builtin.command')
    .split(/\s+/)
    .map((k) => normaliseKey(k)),
);

function isThingSibling(key: string): boolean {
  return key.length <= 48 && THING_SIBLINGS.has(normaliseKey(key));
}

const LOWER_WORD = /^\p{Ll}[\p{Ll}'’-]+$/u;

/** Whether `value` under a generic "name" key is shaped as a person's: a first name the lists know, then a surname ("Jan de Vries", "John Smith"). */
function fullNameShaped(words: readonly string[]): boolean {
  if (words.length < 2 || words.length > 5) return false;
  const first = words[0]!;
  if (!CAPITALISED_WORD.test(first) || isNonNameWord(first) || !isKnownFirstName(capitalised(first))) return false;
  const last = words[words.length - 1]!;
  return CAPITALISED_WORD.test(last) && !isNonNameWord(last) && !THING_WORDS.has(last.toLowerCase()) && words.slice(1, -1).every((w) => NAME_PARTICLES.has(w.toLowerCase()) || CAPITALISED_WORD.test(w));
}

/**
 * Whether a value under a generic "name" key names a thing (see STEP_VERBS): `siblings`, the keys
 * beside it (its object's, its YAML block's), when known.
 */
function namesAThing(value: string, siblingsOf: () => readonly string[] | undefined): boolean {
  const words = value.split(/[ \u00a0]+/).filter((w) => w !== '');
  if (words.length === 0 || fullNameShaped(words)) return false;
  const first = words[0]!;
  if (STEP_VERBS.has(first.toLowerCase())) return true;
  const firstIsName = !isNonNameWord(first) && isKnownFirstName(capitalised(first));
  const siblings = siblingsOf();
  if (siblings !== undefined && !siblings.some((k) => isPersonalKey(k) && !isBareNameKey(k))) {
    if (siblings.some(isThingSibling)) return true;
    if ((!firstIsName || isAmbiguousFirstName(capitalised(first))) && siblings.some((k) => k.length <= 48 && KIND_SIBLINGS.has(normaliseKey(k)))) return true;
  }
  if (!firstIsName && CAPITALISED_WORD.test(first) && words.slice(1).some((w) => LOWER_WORD.test(w) && !NAME_PARTICLES.has(w))) return true;
  return words.some((w) => THING_WORDS.has(w.toLowerCase())) && !words.some((w) => !isAmbiguousFirstName(capitalised(w)) && isKnownFirstName(capitalised(w)) && !isNonNameWord(w));
}

// A cell of a name column that holds no one: left empty in words, or a dash.
const NO_ONE = /^(?:n\/?a|n\.?v\.?t\.?|none|null|nil|unknown|onbekend|inconnu|unbekannt|tbd|tba|leeg|empty|vide|leer|[-–—?.*\s]+)$/iu;
const A_LETTER = /\p{L}/u;

/**
 * Whether a cell under a table's column of names is masked whole as a name: any value with a letter,
 * up to a long name's length, whatever its shape. A name with a typing slip or an export's suffix
 * ("Pieter Bakker760", "X Æ A-12") went out in clear, or half: "[PERSON_1] Smit505". An e-mail
 * address there is left to its recognizer.
 */
function isNameCell(value: string): boolean {
  return value.length <= MAX_NAME_CELL && A_LETTER.test(value) && !NO_ONE.test(value) && value.indexOf('@') < 0;
}
const MAX_NAME_CELL = 80;

// A first word written as a name: "Anna" in "Anna Smit505".
const NAME_WORD_FIRST = /^\p{Lu}\p{Ll}+(?:-\p{Lu}\p{Ll}+)?(?=[ \u00a0]|$)/u;

/**
 * Whether a value under a name key opens with a first name the lists know, whatever follows: the
 * whole value is the name ("Naam: Anna Smit505", "naam": "Pieter Bakker760"; before, "[PERSON_1]
 * Smit505", or in a JSON literal all of it in clear). Not when a word of prose follows ("Naam: Jan
 * (zie bijlage 2)": the rest is read as before), nor a value that opens otherwise ("name":
 * "polder-gateway").
 */
function startsWithFirstName(value: string): boolean {
  const first = NAME_WORD_FIRST.exec(value)?.[0];
  if (first === undefined || !isNameCell(value) || !isKnownFirstName(first) || isNonNameWord(first)) return false;
  return !value
    .slice(first.length)
    .split(/[ \u00a0]+/)
    .some((word) => LOWER_CASE_WORD.test(word) && !NAME_PARTICLES.has(word));
}
const LOWER_CASE_WORD = /^[(\p{Ll}][\p{Ll}]{2,}/u;

/**
 * Whether a word of `value` is a first name or surname the lists know, and not one that is also a
 * word ("Summer Party", "Grace Hopper Edition" under an "event_name" hold no person).
 */
function holdsKnownName(value: string, strict = true): boolean {
  return value.split(/[ ,\u00a0-]+/).some((w) => {
    if (w.length < 2 || isNonNameWord(w) || (strict && isAmbiguousFirstName(capitalised(w)))) return false;
    const c = capitalised(w);
    return isKnownFirstName(c) || isKnownLastName(c);
  });
}

function capitalised(w: string): string {
  return w.charAt(0).toUpperCase() + w.slice(1).toLowerCase();
}

function holdsKnownFirstName(value: string): boolean {
  return value.split(/[ ,\u00a0-]+/).some((w) => w.length > 1 && isKnownFirstName(w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()));
}

// 11-09-1964, 1964-09-11, 11.9.64, 16 March 1983, 16. März 1983, March 16, 1983.
const DATE_VALUE =
  /^(?:\d{1,2}[-./ ]\d{1,2}[-./ ]\d{2,4}|\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}\.?[ ]\p{L}{3,12}\.?[ ]\d{2,4}|\p{L}{3,12}[ ]\d{1,2},?[ ]\d{4})$/u;
const PHONE_VALUE = /^\+?[\d ()./-]{6,24}$/;
const ID_VALUE = /^[\dA-Za-z ./-]{6,40}$/;
const POSTCODE_OR_PLACE = /^[\p{L}\d][\p{L}\d '’.-]{0,60}$/u;
// An Italian, Spanish or Polish postcode, or a Dutch one: what a "CAP" key holds when it is one.
const POSTCODE_SHAPE = /^(?:\d{5}|\d{2}-\d{3}|[1-9]\d{3} ?[A-Z]{2})$/;

// The signs of a street's address besides letters and digits: Spanish "C/" (calle), a flat after a
// slash ("ul. Floriańska 12/4", "Hauptstraße 5/3/12"), the floor's "3º", "nº 5". A value with them
// was sent in clear ("dirección": "C/ Mayor 5, 3º B"); "N/A" and a network's "10.0.0.0/24" are none.
const ADDRESS_SIGNS = /(?<=\d)\/(?=\d)|(?<![\p{L}\p{N}])[Cc]\/(?![Oo](?!\p{L}))|[º°ª]/gu;

/** An address value with its commas and ADDRESS_SIGNS as spaces, for POSTCODE_OR_PLACE; unchanged when no word of two letters is in it. */
function addressSigns(value: string): string {
  const spaced = value.replace(/,/g, ' ');
  return /\p{L}{2}/u.test(value) ? spaced.replace(ADDRESS_SIGNS, ' ').trim() : spaced;
}

/** The type a value under a key of `kind` is masked as, or null when it cannot be one. */
function valueType(kind: KeyKind, value: string, thingContext: boolean): EntityType | null {
  switch (kind) {
    case 'THING':
      return null;
    case 'PERSON':
      return looksLikeName(value, true) || startsWithFirstName(value) ? 'PERSON' : null;
    case 'NAME':
      return !thingContext && (looksLikeName(value, false) || startsWithFirstName(value)) ? 'PERSON' : null;
    case 'CHILD':
      return !thingContext && looksLikeName(value, true) && holdsKnownFirstName(value) ? 'PERSON' : null;
    case 'NAMED':
      return !thingContext && looksLikeName(value, false) && holdsKnownName(value) ? 'PERSON' : null;
    case 'PHONE':
      return PHONE_VALUE.test(value) && digitCount(value) >= 6 ? 'PHONE' : null;
    case 'EMAIL':
      return value.includes('@') && value.length <= 120 && !isRoleMailbox(value) ? 'EMAIL' : null;
    case 'DATE_OF_BIRTH':
      return DATE_VALUE.test(value) ? 'DATE_OF_BIRTH' : null;
    case 'CUSTOMER_REF':
    case 'ID_NUMBER':
      // The whole value must be one reference ("IV-2024-000101"), not a sentence with a number in it.
      return referenceValue(value, false) === value ? kind : null;
    case 'POSTCODE':
      return POSTCODE_SHAPE.test(value) ? 'ADDRESS' : null;
    case 'ADDRESS':
      return value.length <= 160 && POSTCODE_OR_PLACE.test(addressSigns(value)) ? 'ADDRESS' : null;
    default:
      // Bank accounts and national ids: digits, maybe letters and separators.
      return ID_VALUE.test(value) && digitCount(value) >= 6 ? kind : null;
  }
}

export interface StructureFindings {
  /** Values typed by their key or column. */
  found: Detection[];
  /** [start, end) pairs: cells under a key that names a thing, where a name needs more than the gazetteer. */
  quiet: number[];
}

const MAX_CELL = 200;

function trimmed(text: string, start: number, end: number): [number, number] {
  while (start < end && isBlank(text.charCodeAt(start))) start++;
  while (end > start && isBlank(text.charCodeAt(end - 1))) end--;
  return [start, end];
}

/**
 * A value without the full stop or comma that ends the sentence it closes ("Klantnummer: 88123456."):
 * after a digit, that is punctuation, not part of the number; the value written again elsewhere is
 * the number alone (detect.ts, findRepeats).
 */
function withoutFinalStop(text: string, start: number, end: number): [number, number] {
  const last = text.charCodeAt(end - 1);
  const before = text.charCodeAt(end - 2);
  return end - start >= 2 && (last === 46 || last === 44 || last === 59) && before >= 48 && before <= 57 ? [start, end - 1] : [start, end];
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 0xa0 || c === 13;
}

// "TEST_USER_NAME", "customerName", "klant_naam": a name key that says whose name it is holds a
// person's name even among keys about things (a port, a version).
const PERSON_NAME_KEY = /(?:user|customer|client|contact|klant|kunde|patient|owner|member|person|guest|employee|tenant)(?:name|naam|nom)$/;

function namesAPerson(key: string): boolean {
  return key.length <= 48 && PERSON_NAME_KEY.test(normaliseKey(key));
}

// The words a form's field holds when it holds nothing, in the four languages and English shorthand.
const NO_VALUE = /^(?:onbekend|unknown|unbekannt|inconnue?|desconhecid[oa]|desconocid[oa]|sconosciut[oa]|nieznany|n\.?v\.?t\.?|n\/?a|k\.?\s?a\.?|none|null|geen|keine?|aucune?|nvt|tbd|tba|-+|–|—|\?+|zie (?:boven|hierboven|onder)|see (?:above|below)|siehe oben|voir ci-dessus)$/iu;

/** How far around a value its JSON object's keys are read (Collector.objectAboutThings). */
const OBJECT_WINDOW = 400;

class Collector {
  readonly found: Detection[] = [];
  readonly quiet: number[] = [];
  private things: boolean | null = null;
  constructor(readonly text: string) {}

  /** Whether the text's keys say it is about things (read once, when a "name" key asks). */
  get thingContext(): boolean {
    this.things ??= thingContextOf(this.text);
    return this.things;
  }

  /**
   * Whether the keys of the JSON object around [start, end) say it is about things: an order's
   * item (`{"name":"Luna Pillow","sku":"LP-1","qty":2}`) beside its customer's e-mail, which makes
   * the text as a whole about a person; and a buyer's object (`{"name":"Anna Smit"}`) beside a
   * product's, which made the text as a whole about things. Undefined outside an object. The
   * object is read within OBJECT_WINDOW characters each side of the value, so the cost per value
   * is bounded.
   */
  objectAboutThings(start: number, end: number): boolean | undefined {
    const keys = this.objectKeys(start, end);
    return keys === undefined ? undefined : aboutThings(keys);
  }

  /** The keys of the JSON object around [start, end), with its parent's; undefined outside an object. */
  objectKeys(start: number, end: number): string[] | undefined {
    const from = Math.max(0, start - OBJECT_WINDOW);
    const before = this.text.slice(from, start);
    const opening = before.lastIndexOf('{');
    if (opening < 0 || before.lastIndexOf('}') > opening) return undefined;
    const open = from + opening;
    const after = this.text.slice(end, end + OBJECT_WINDOW);
    // To the object's end, or to an object inside it, whose keys are its own.
    const closing = [after.indexOf('}'), after.indexOf('{')].filter((at) => at >= 0);
    const close = end + (closing.length > 0 ? Math.min(...closing) : after.length);
    const keys = [...keysOf(this.text.slice(open, close))];
    // With the key the object stands under: {"customer":{"name":…,"sku":…}} is a person's.
    const parent = keyBefore(this.text, open);
    if (parent !== null) keys.push(parent.key);
    return keys;
  }

  /**
   * Types the value at [start, end) by `key`; false when the key names nothing we know. `column`:
   * the key is a table's column header, where a child's column is known too.
   */
  value(key: string, start: number, end: number, tableOfThings?: boolean, column = false, tableOfPeople = false, siblings?: readonly string[]): boolean {
    // The keys of the object around the value, read once (a name's value asks twice).
    let around: string[] | undefined | null = null;
    const keysAround = (): string[] | undefined => (around === null ? (around = this.objectKeys(start, end)) : around);
    const kind = keyKind(key) ?? (column && isChildColumn(key) ? 'CHILD' : null) ?? (!column && key.length <= 8 && PAIRED_NAME_KEYS.has(key.toLowerCase()) ? pairedKind(key, keysAround()) : null);
    if (kind === null) return false;
    const objectThings = (): boolean => {
      const keys = keysAround();
      return keys === undefined ? this.thingContext : aboutThings(keys);
    };
    const thingContext = tableOfThings ?? (kind === 'NAME' && !namesAPerson(key) && objectThings());
    [start, end] = withoutFinalStop(this.text, ...trimmed(this.text, start, end));
    if (end <= start || end - start > MAX_CELL) return true;
    // "Adres: onbekend", "Name: n/a", "Telefon: -": a form's field that says it holds nothing.
    if (end - start <= 16 && NO_VALUE.test(this.text.slice(start, end))) return true;
    // "Salarié : M. Julien Lefèvre", "Ansprechpartner: Herr Jonas Becker": the title stays outside
    // the placeholder, as in prose, so the name shares its placeholder with the same name elsewhere.
    if (kind === 'PERSON' || kind === 'NAME' || kind === 'CHILD') {
      const title = leadingTitleLength(this.text.slice(start, end));
      if (title > 0 && title < end - start) start += title;
    }
    if (kind === 'THING' || ((kind === 'NAME' || kind === 'CHILD') && thingContext)) {
      this.quiet.push(start, end);
      return true;
    }
    const value = this.text.slice(start, end);
    // {"city": "Amsterdam", "population": 921402}: a town among its own facts is no one's address.
    if (kind === 'ADDRESS' && !column && isTownKey(key) && townAmongItsFacts(siblings ?? keysAround())) return true;
    // `- name: Install dependencies`, `Name: Quarterly Sales Report`, {"name":"Florence","type":"city"}:
    // a thing's name, kept from the cue "name:" too.
    if (kind === 'NAME' && !column && isBareNameKey(key) && namesAThing(value, () => siblings ?? keysAround())) {
      this.quiet.push(start, end);
      return true;
    }
    // A body under a name key ("Naam: Stichting De Regenboog", a "klant" column of companies) is no
    // person, as in prose (person.ts): its name is public and the model needs it.
    if ((kind === 'PERSON' || kind === 'NAME') && (isOrganisationName(value) || isPlaceholderName(value))) return true;
    // A table's column of names holds one person's name per row, whatever it looks like.
    if (column && (kind === 'PERSON' || (kind === 'NAME' && ((tableOfPeople && isBareNameKey(key)) || namesAPerson(key)))) && isNameCell(value)) {
      this.found.push({ type: 'PERSON', start, end, text: value, checksum: false });
      return true;
    }
    // "nombre", "nome" alone are any thing's name as often (nombre = "Usuario", {"nombre": "Madrid
    // Centro", "tipo": "oficina"} were masked): a person's when the value holds a name the lists
    // know, or when its object holds personal data beside it.
    if (kind === 'NAME' && !column && SOUTHERN_NAME_KEYS.has(normaliseKey(key)) && !holdsKnownName(value, false) && !this.objectAboutPeople(start, end)) {
      return true;
    }
    const type = valueType(kind, value, thingContext);
    if (type !== null) this.found.push({ type, start, end, text: value, checksum: false });
    return true;
  }

  /** Whether the JSON object around [start, end) has a key of personal data (see objectAboutThings). */
  objectAboutPeople(start: number, end: number): boolean {
    const keys = this.objectKeys(start, end);
    return keys !== undefined && keys.some((key) => isPersonalKey(key) && !isBareNameKey(key));
  }

  /**
   * Types a URL query's value at [start, end) by its key, as a JSON value is: read decoded
   * ("Jan+de+Vries" is "Jan de Vries"), and when written otherwise than it reads, reported with
   * its decoded form, so that its placeholder is percent-encoded and the URL stays one.
   */
  queryValue(key: string, start: number, end: number, addresses: boolean, queryKeys?: readonly string[]): 'typed' | 'address' | 'none' {
    const kind = keyKind(key) ?? pairedKind(key, queryKeys);
    if (kind === null || kind === 'CHILD') return 'none';
    const thingContext = kind === 'NAME' && !namesAPerson(key) && this.thingContext;
    if (kind === 'THING' || (kind === 'NAME' && thingContext)) {
      this.quiet.push(start, end);
      return 'none';
    }
    if ((kind === 'ADDRESS' || kind === 'POSTCODE') && !addresses) return 'address';
    const written = this.text.slice(start, end);
    const value = decodedQueryValue(written);
    if ((kind === 'PERSON' || kind === 'NAME') && (isOrganisationName(value) || isPlaceholderName(value))) return 'none';
    const type = valueType(kind, value, thingContext);
    if (type === null) return 'none';
    this.found.push({ type, start, end, text: written, checksum: false, ...(value === written ? {} : { urlDecoded: value }) });
    return 'typed';
  }
}

/**
 * A query value decoded: "+" a space, escapes as UTF-8, and again while an escape remains, at most
 * three times as url-encoded.ts decodes ("Jan%2520de%2520Vries"); a malformed escape leaves it as it is.
 */
function decodedQueryValue(written: string): string {
  let value = written.replace(/\+/g, ' ');
  for (let round = 0; round < 3 && value.indexOf('%') >= 0; round++) {
    try {
      const next = decodeURIComponent(value);
      if (next === value) break;
      value = next;
    } catch {
      break;
    }
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Quoted literals: "key": "value", key = 'value', key: "value", name="value" (JSON, JS, Python,
// SQL); SQL INSERT … (columns) VALUES (literals).

const KEY_MAX = 48;

function isKeyChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c === 45 || c === 46 || (c > 127 && /\p{L}/u.test(String.fromCharCode(c)));
}

/**
 * The key right before a literal that opens at `open`: optionally quoted, then ':' or '=' (or
 * '=>', '=='), read backwards over at most KEY_MAX key characters. Null when there is none.
 */
/**
 * The key a literal at `open` is given to or compared with: `key: "…"`, `key = '…'`, `key => "…"`,
 * and comparisons in code and SQL — `key == "…"`, `key === "…"`, `key != "…"`, `key !== "…"`,
 * `key LIKE '…%'` (`like`: the value may hold SQL wildcards). A comparison names the value as surely
 * as an assignment: `if (kunde.vorname === "Benedikt")`, `WHERE achternaam LIKE 'Oberhuber%'`.
 */
function keyBefore(text: string, open: number): { key: string; like: boolean } | null {
  let i = open;
  let spaces = 0;
  while (i > 0 && (text.charCodeAt(i - 1) === 32 || text.charCodeAt(i - 1) === 9) && spaces++ < 8) i--;
  const sign = text.charCodeAt(i - 1);
  let like = false;
  if (sign === 62 && text.charCodeAt(i - 2) === 61) i -= 2; // =>
  else if (sign === 61) {
    // = == === != !==
    let equals = 0;
    while (equals < 3 && text.charCodeAt(i - 1) === 61) {
      i--;
      equals++;
    }
    if (text.charCodeAt(i - 1) === 33) i--;
  } else if (sign === 58) i--;
  else if (likeBefore(text, i)) {
    i -= 4;
    like = true;
    if (i > 0 && (text.charCodeAt(i - 1) === 73 || text.charCodeAt(i - 1) === 105) && (i < 2 || !isKeyChar(text.charCodeAt(i - 2)))) i--; // ILIKE
    else if (i > 0 && !isBlank(text.charCodeAt(i - 1))) return null;
  } else return null;
  spaces = 0;
  while (i > 0 && (text.charCodeAt(i - 1) === 32 || text.charCodeAt(i - 1) === 9) && spaces++ < 8) i--;
  // "achternaam NOT LIKE '…'": the key is before the NOT.
  if (like && i >= 3 && /^not$/i.test(text.slice(i - 3, i)) && (i === 3 || !isKeyChar(text.charCodeAt(i - 4)))) {
    i -= 3;
    spaces = 0;
    while (i > 0 && (text.charCodeAt(i - 1) === 32 || text.charCodeAt(i - 1) === 9) && spaces++ < 8) i--;
  }
  const quote = i > 0 && isQuote(text.charCodeAt(i - 1)) ? text.charCodeAt(i - 1) : -1;
  if (quote >= 0) i--;
  const end = i;
  while (i > 0 && end - i < KEY_MAX && isKeyChar(text.charCodeAt(i - 1))) i--;
  // A quoted key may hold spaces ("código postal", "fecha de nacimiento", "Nombre y apellidos"):
  // read from its opening quote, within KEY_MAX; before, only its last word was the key.
  if (quote >= 0 && i > 0 && i < end && text.charCodeAt(i - 1) === 32) {
    let k = i;
    while (k > 0 && end - k < KEY_MAX && (isKeyChar(text.charCodeAt(k - 1)) || text.charCodeAt(k - 1) === 32)) k--;
    if (k > 0 && k < i && text.charCodeAt(k - 1) === quote && text.charCodeAt(k) !== 32) i = k;
  }
  if (i === end || (i > 0 && isKeyChar(text.charCodeAt(i - 1)))) return null;
  return { key: text.slice(i, end), like };
}

/** Whether the four characters before `at` are the word LIKE, in any case, with a blank before the literal. */
function likeBefore(text: string, at: number): boolean {
  return at >= 4 && at < text.length && /^like$/i.test(text.slice(at - 4, at)) && isBlank(text.charCodeAt(at));
}

function isQuote(c: number): boolean {
  return c === 34 || c === 39 || c === 96;
}

/** Each literal of the text: [open, close) with open at the quote; an apostrophe between letters is not a quote. */
function* literals(text: string): Generator<[number, number]> {
  // The next position of each quote character, found with indexOf (fast) and kept until passed.
  const next = [text.indexOf('"'), text.indexOf("'"), text.indexOf('`')];
  const n = text.length;
  let i = 0;
  for (;;) {
    for (let q = 0; q < 3; q++) {
      if (next[q]! >= 0 && next[q]! < i) next[q] = text.indexOf(QUOTES[q]!, i);
    }
    let at = -1;
    for (const p of next) if (p >= 0 && (at < 0 || p < at)) at = p;
    if (at < 0) return;
    i = at;
    const c = text.charCodeAt(i);
    if (c === 39 || c === 96) {
      // "it's", "l'adresse": an apostrophe after a letter or digit does not open a literal.
      const p = i > 0 ? text.charCodeAt(i - 1) : 32;
      if ((p >= 65 && p <= 90) || (p >= 97 && p <= 122) || (p >= 48 && p <= 57) || p > 127) {
        i++;
        continue;
      }
    }
    let j = i + 1;
    while (j < n && j - i <= MAX_CELL + 1) {
      const d = text.charCodeAt(j);
      if (d === 10) break;
      if (d === 92) {
        j += 2;
        continue;
      }
      if (d === c) break;
      j++;
    }
    if (j < n && text.charCodeAt(j) === c) {
      const inner = text.charCodeAt(i + 1);
      // '{"name": …}' (a shell argument, a string holding JSON): the literals inside are read.
      if (inner === 123 || inner === 91) {
        i++;
        continue;
      }
      yield [i, j];
      // A shell's double-quoted argument holding SQL ("mysql -e \"… where achternaam='Smit'\""):
      // its single-quoted literals are read too (QA 2026-11-27c: sent in clear). Each such literal is
      // read once more at most: linear.
      i = c === 34 && holdsSqlLiteral(text, i + 1, j) ? i + 1 : j + 1;
    } else {
      // No closing quote on this line: not a literal; go on after the quote.
      i++;
    }
  }
}
const QUOTES = ['"', "'", '`'];

/** Whether [from, to) holds a single-quoted value after "=" or LIKE ("achternaam='Smit'", "= 'Smit'"). */
function holdsSqlLiteral(text: string, from: number, to: number): boolean {
  const inner = text.slice(from, to);
  return /=[ \t]{0,4}'|\blike[ \t]{1,4}'/i.test(inner);
}

const SQL_VALUES = /\)[ \t\n]{0,8}values[ \t\n]{0,8}\(/giu;

const MAX_SQL_TUPLES = 1000;
const MAX_SQL_VALUES = 200_000;

/**
 * Reads one tuple's values from `i` (after its '('), literals and bare tokens, up to its ')', giving
 * each to `cell` with its place and whether it was quoted; at most `count` of them.
 */
function sqlTupleCells(text: string, i: number, count: number, close: number, cell: (col: number, start: number, end: number, quoted: boolean) => void): number {
  let col = 0;
  while (i < text.length && col < count && i - close < MAX_SQL_VALUES) {
    // A tuple written over lines ("VALUES (\n  'a',\n  'b'\n)"): a line break between values is
    // space, or a value's cell took the break, the indent and its quotes with it.
    while (i < text.length && isSpaceBetweenValues(text.charCodeAt(i))) i++;
    const c = text.charCodeAt(i);
    let start = i;
    let end = i;
    if (isQuote(c)) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== c && text.charCodeAt(j) !== 10) j++;
      start = i + 1;
      end = j;
      i = j + 1;
    } else {
      while (i < text.length && text.charCodeAt(i) !== 44 && text.charCodeAt(i) !== 41) i++;
      end = i;
    }
    cell(col, start, end, isQuote(c));
    col++;
    while (i < text.length && isSpaceBetweenValues(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== 44) break;
    i++;
  }
  return i;
}

const BARE_NAME_COLUMN = /^(?:name|naam|nom|nombre|nome|title|titel|titre)$/i;

function isSpaceBetweenValues(c: number): boolean {
  return isBlank(c) || c === 10 || c === 13;
}

function sqlTuple(text: string, i: number, columns: string[], close: number, out: Collector, things: boolean): number {
  // Cells under columns the keys do not name ("INSERT INTO t (a, b) …") are read as a bare insert's.
  const unnamed: Cell3[] = [];
  const end = sqlTupleCells(text, i, columns.length, close, (col, start, stop, quoted) => {
    // A table of things names its rows by a bare `name` ("INSERT INTO products (name, sku)"): a product's.
    if (things && BARE_NAME_COLUMN.test(columns[col]!)) return;
    if (!out.value(columns[col]!, start, stop)) unnamed.push([start, stop, quoted]);
  });
  if (!things) namePairs(text, unnamed, out);
  return end;
}

type Cell3 = [start: number, end: number, quoted: boolean];

/** In a tuple's cells, a quoted first name the lists know and a quoted capitalised word after it: a person's name. */
function namePairs(text: string, cells: readonly Cell3[], out: Collector): void {
  for (let c = 0; c + 1 < cells.length; c++) {
    const [fs, fe, fq] = cells[c]!;
    const [ls, le, lq] = cells[c + 1]!;
    if (!fq || !lq || ls - fe > 8 || !isNamePair(text.slice(fs, fe), text.slice(ls, le))) continue;
    out.found.push({ type: 'PERSON', start: fs, end: fe, text: text.slice(fs, fe), checksum: false });
    out.found.push({ type: 'PERSON', start: ls, end: le, text: text.slice(ls, le), checksum: false });
    c++;
  }
}

/** A first name and a surname as two cells: capitalised ("Henk", "Bakker"), or both known in lower case ("henk", "bakker"). */
function isNamePair(first: string, last: string): boolean {
  if (isKnownFirstName(first)) return SURNAME_CELL.test(last);
  return isKnownFirstNameLower(first) && isKnownLastNameLower(last);
}

/** Whether an insert's table holds things ("products", "artikelen", "product_catalog"), whose names are no people's. */
function tableOfThings(table: string): boolean {
  const name = table.replace(/["`[\]]/g, '').split('.').pop()!;
  return name.split(/[_-]|(?<=[a-z])(?=[A-Z])/).some((word) => isThingContext(word) || isThingContext(word.replace(/(?:s|en|e)$/i, '')));
}

/** After a tuple's ')': where the next one's values start when a comma and '(' follow, or -1. */
function nextTuple(text: string, i: number): number {
  while (i < text.length && isBlank(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 41) return -1;
  i++;
  while (i < text.length && isBlank(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 44) return -1;
  i++;
  while (i < text.length && (isBlank(text.charCodeAt(i)) || text.charCodeAt(i) === 10)) i++;
  return text.charCodeAt(i) === 40 ? i + 1 : -1;
}

// An insert without a column list ("INSERT INTO users VALUES (1, 'Henk', 'Bakker', '06-12345678')")
// names no column: a first name the lists know, quoted, followed by a quoted capitalised word is a
// person's first name and surname (before, both were sent in clear), unless the table holds things.
const SQL_BARE_VALUES = /insert[ \t\n]{1,8}into[ \t\n]{1,8}([\w."`[\]]{1,64})[ \t\n]{1,8}values[ \t\n]{0,8}\(/giu;
const SURNAME_CELL = /^(?:(?:van|de|der|den|von|du|le|la|di|da|ter|ten)[ ]){0,3}\p{Lu}[\p{L}'’-]{1,40}$/u;

function bareSqlInserts(text: string, out: Collector): void {
  SQL_BARE_VALUES.lastIndex = 0;
  for (let m = SQL_BARE_VALUES.exec(text); m; m = SQL_BARE_VALUES.exec(text)) {
    const things = tableOfThings(m[1]!);
    let i = m.index + m[0].length;
    // Each tuple of the values list — "(…), (…)" — as sqlInserts reads them.
    for (let tuples = 0; tuples < MAX_SQL_TUPLES && i - m.index < MAX_SQL_VALUES; tuples++) {
      const cells: Cell3[] = [];
      i = sqlTupleCells(text, i, 64, m.index, (_col, start, stop, quoted) => cells.push([start, stop, quoted]));
      if (!things) namePairs(text, cells, out);
      const next = nextTuple(text, i);
      if (next < 0) break;
      i = next;
    }
    SQL_BARE_VALUES.lastIndex = Math.max(SQL_BARE_VALUES.lastIndex, i);
  }
}

function sqlInserts(text: string, out: Collector): void {
  if (!/values/i.test(text)) return;
  bareSqlInserts(text, out);
  SQL_VALUES.lastIndex = 0;
  for (let m = SQL_VALUES.exec(text); m; m = SQL_VALUES.exec(text)) {
    const close = m.index;
    const open = text.lastIndexOf('(', close);
    if (open < 0 || close - open > 600) continue;
    const columns = text.slice(open + 1, close).split(',').map((c) => c.trim().replace(/^["'`[]|["'`\]]$/g, ''));
    const table = /([\w."`[\]]{1,64})[ \t\n]*$/.exec(text.slice(Math.max(0, open - 80), open))?.[1];
    const things = aboutThings(columns) || (table !== undefined && tableOfThings(table));
    let i = m.index + m[0].length;
    // Each tuple of the values list — "(…), (…)" — against the same columns.
    for (let tuples = 0; tuples < MAX_SQL_TUPLES && i - close < MAX_SQL_VALUES; tuples++) {
      i = sqlTuple(text, i, columns, close, out, things);
      // After the tuple's ')': another one follows after a comma.
      const next = nextTuple(text, i);
      if (next < 0) break;
      i = next;
    }
    SQL_VALUES.lastIndex = Math.max(SQL_VALUES.lastIndex, i);
  }
}

function isWildcard(c: number): boolean {
  return c === 37 || c === 95;
}

function keyedLiterals(text: string, out: Collector): void {
  for (const [open, close] of literals(text)) {
    const found = keyBefore(text, open);
    if (found === null) continue;
    const { key, like } = found;
    let [start, end] = [open + 1, close];
    // 'Oberhuber%', '%jan%': the wildcards are no part of the value.
    if (like) {
      while (start < end && isWildcard(text.charCodeAt(start))) start++;
      while (end > start && isWildcard(text.charCodeAt(end - 1))) end--;
    }
    // "client.nom": the last part names the value.
    let name = key.slice(key.lastIndexOf('.') + 1);
    // <input name="last_name" value="Pearce">: the field's name says what its value is, and is
    // itself no one's name (<input name="qty"> was masked as a person).
    if (FORM_VALUE_KEYS.has(name.toLowerCase())) {
      const field = formFieldName(text, open, close);
      // A button's value is its label (<input type="submit" name="name" value="Send Message">,
      // <input name="name" value="Submit">): masked as a person before.
      if (field !== null && isButtonLabel(text, open, close)) continue;
      name = field ?? name;
    }
    else if (name === 'name' && FORM_TAG.test(tagBefore(text, open) ?? '')) continue;
    // "WHERE city = 'Rotterdam' GROUP BY city", "SELECT count(*) … WHERE stad = 'Utrecht'": a
    // query's aggregate by town names no one's address.
    if (isTownKey(name) && sqlAggregateAround(text, open, close)) continue;
    out.value(name, start, end);
  }
}

const SQL_AGGREGATE_BEFORE = /\b(?:count|sum|avg|min|max)[ \t]*\(/i;
const SQL_AGGREGATE_AFTER = /^[^;]*?\bgroup[ \t\n]+by\b/i;
const SQL_AROUND = 200;

/** Whether the SQL statement around the literal at [open, close] aggregates (COUNT(…), GROUP BY), read within SQL_AROUND characters. */
function sqlAggregateAround(text: string, open: number, close: number): boolean {
  const before = text.slice(Math.max(0, open - SQL_AROUND), open);
  const statement = before.slice(before.lastIndexOf(';') + 1);
  if (!/\bwhere\b/i.test(statement)) return false;
  return SQL_AGGREGATE_BEFORE.test(statement) || SQL_AGGREGATE_AFTER.test(text.slice(close + 1, close + 1 + SQL_AROUND));
}

// An HTML form's field (<input name="nom" value="Lambert">, <meta name="author" content="…">): its
// value went out in clear, as "value" names nothing. The tag is read within FORM_WINDOW characters
// each side of the value, so the cost per value is bounded.
const FORM_VALUE_KEYS = new Set(['value', 'content']);
const FORM_WINDOW = 300;
const FORM_NAME = /(?<![\w-])name[ \t]*=[ \t]*(["'])([^"'<>\n]{1,48})\1/;

const FORM_TAG = /^<(?:input|select|textarea|button|form|meta|param|output|fieldset|iframe|object|map)(?![\w-])/i;

/** The tag's text from its '<' to a literal at `open`, or null outside a tag (within FORM_WINDOW). */
function tagBefore(text: string, open: number): string | null {
  const before = text.slice(Math.max(0, open - FORM_WINDOW), open);
  const lt = before.lastIndexOf('<');
  return lt < 0 || before.lastIndexOf('>') > lt ? null : before.slice(lt);
}

const BUTTON_TYPE = /(?<![\w-])type[ \t]*=[ \t]*["']?(?:submit|button|reset|image)(?![\w-])/i;
// The labels of a form's buttons, in the seven languages, as a value's first word.
const BUTTON_WORDS = new Set(
  `submit send save cancel ok search go login log sign register subscribe continue next back previous reset apply update delete
  remove confirm add edit upload download buy order pay checkout book join start verzenden versturen opslaan annuleren zoeken
  inloggen aanmelden bevestigen absenden senden speichern abbrechen suchen anmelden bestätigen weiter envoyer enregistrer
  annuler rechercher valider connexion continuer enviar guardar cancelar buscar aceptar invia salva annulla cerca accedi
  conferma wyślij zapisz anuluj szukaj zaloguj`.split(/\s+/),
);

/** Whether the value literal at [open, close] is a button's label: its tag a button's, or its first word a button's verb. */
function isButtonLabel(text: string, open: number, close: number): boolean {
  const tag = tagBefore(text, open) ?? '';
  if (/^<button(?![\w-])/i.test(tag) || BUTTON_TYPE.test(tag)) return true;
  const after = text.slice(close + 1, close + 1 + FORM_WINDOW);
  const gt = after.indexOf('>');
  if (gt >= 0 && BUTTON_TYPE.test(after.slice(0, gt))) return true;
  const value = text.slice(open + 1, Math.min(close, open + 41));
  const word = /^[\p{L}]+/u.exec(value);
  return word !== null && BUTTON_WORDS.has(word[0].toLowerCase());
}

/** The name="…" of the tag around a value literal at [open, close], or null outside a tag. */
function formFieldName(text: string, open: number, close: number): string | null {
  const tag = tagBefore(text, open);
  if (tag === null) return null;
  const after = text.slice(close + 1, close + 1 + FORM_WINDOW);
  const gt = after.indexOf('>');
  if (gt < 0 || after.lastIndexOf('<', gt) >= 0) return null;
  const m = FORM_NAME.exec(tag) ?? FORM_NAME.exec(after.slice(0, gt));
  return m === null ? null : m[2]!;
}

// ---------------------------------------------------------------------------------------------
// URL query strings and form bodies: "?naam=Jan+de+Vries&tel=…", "&last_name=Bennett", "&amp;lastName=…"
// (HTML). The key says what the value is, as in JSON; a name under a name key has no cue in a URL
// and went out in clear unless the URL held a percent escape (the decoded reading found a name the
// gazetteer knew, never a surname alone). A value ends where the query's syntax or the text's
// does; one longer than a cell is not typed. One pass: pairs do not overlap, each part bounded.
const QUERY_PAIR = /(?:[?&]|&amp;)([A-Za-z_][\w.\-[\]]{0,47})=([^&#\s"'`<>]{1,200})/g;
const QUERY_VALUE_CHAR = /[^&#\s"'`<>]/;
const QUERY_TRAILING_PUNCTUATION = /[.,;:!?)\]}]+$/;

// A town or postcode alone in a query is a search's filter ("?city=Köln&page=2", a shop finder): it
// is typed only in a query that holds other personal data, whose household it then narrows down.
function queryPairs(text: string, out: Collector): void {
  if (text.indexOf('?') < 0 && text.indexOf('&') < 0) return;
  let queryEnd = -1;
  // The pairs of one query, typed together: a key may need its partner ("first" beside "last").
  let pairs: Array<[string, number, number]> = [];
  const flush = () => {
    if (pairs.length === 0) return;
    const keys = pairs.length > 1 ? pairs.map(([key]) => key) : undefined;
    let personal = false;
    const addresses: Array<[string, number, number]> = [];
    for (const [key, start, end] of pairs) {
      const verdict = out.queryValue(key, start, end, false, keys);
      if (verdict === 'typed') personal = true;
      else if (verdict === 'address') addresses.push([key, start, end]);
    }
    if (personal) for (const [key, start, end] of addresses) out.queryValue(key, start, end, true);
    pairs = [];
  };
  for (const m of text.matchAll(QUERY_PAIR)) {
    // The pairs of one query follow each other without a gap.
    if (m.index !== queryEnd) flush();
    const end = m.index + m[0].length;
    queryEnd = end;
    if (end < text.length && QUERY_VALUE_CHAR.test(text.charAt(end))) continue;
    const written = m[2]!.replace(QUERY_TRAILING_PUNCTUATION, '');
    if (written === '') continue;
    // "filter[last_name]": the last part names the value, as in "client.nom".
    const path = m[1]!.replace(/\]$/, '');
    const key = path.slice(Math.max(path.lastIndexOf('.'), path.lastIndexOf('[')) + 1);
    const start = end - m[2]!.length;
    // A query of many pairs is typed in bounded groups.
    if (pairs.length >= 64) flush();
    pairs.push([key, start, start + written.length]);
  }
  flush();
}

// ---------------------------------------------------------------------------------------------
// Lines: key-value lines, a header row over CSV/TSV/Markdown rows, a lone header over one value.

interface Line {
  start: number;
  end: number;
}

function linesOf(text: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    out.push({ start, end: end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end });
    if (nl < 0) return out;
    start = nl + 1;
  }
}

type Cell = [number, number];

/**
 * The cells of a line split at `sep` (a Markdown row's outer pipes dropped); null past 64 cells,
 * or when a cell is longer than `maxCell` (a header's cells are labels).
 */
function cellsOf(text: string, line: Line, sep: number, maxCell = Infinity): Cell[] | null {
  let { start, end } = line;
  [start, end] = trimmed(text, start, end);
  if (sep === 124) {
    if (text.charCodeAt(start) !== 124) return null;
    start++;
    if (end > start && text.charCodeAt(end - 1) === 124) end--;
  }
  const cells: Cell[] = [];
  let from = start;
  for (;;) {
    // A CSV cell in double quotes may hold the separator ("Jansen, Pieter"): the cell is what the
    // quotes enclose, and the line goes on after the closing quote. Without one that ends the cell,
    // the quote is read as a character.
    if (sep !== 124) {
      const q = firstNonBlank(text, from, end);
      if (text.charCodeAt(q) === 34 && q < end) {
        const close = closingQuote(text, q + 1, end);
        const after = close < 0 ? -1 : firstNonBlank(text, close + 1, end);
        if (close >= 0 && (after === end || text.charCodeAt(after) === sep)) {
          if (close - q - 1 > maxCell) return null;
          cells.push([q + 1, close]);
          if (cells.length > 64) return null;
          if (after === end) return cells;
          from = after + 1;
          continue;
        }
      }
    }
    let i = from;
    while (i < end && text.charCodeAt(i) !== sep) i++;
    if (i - from > maxCell) return null;
    cells.push([from, i]);
    if (cells.length > 64) return null;
    if (i === end) return cells;
    from = i + 1;
  }
}

function firstNonBlank(text: string, from: number, end: number): number {
  while (from < end && isBlank(text.charCodeAt(from))) from++;
  return from;
}

/** The closing double quote of a CSV cell opened before `from` ("" is a quote inside it), before `end`; -1 when none. */
function closingQuote(text: string, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    if (text.charCodeAt(i) !== 34) continue;
    if (text.charCodeAt(i + 1) === 34 && i + 1 < end) {
      i++;
      continue;
    }
    return i;
  }
  return -1;
}

// (an apostrophe too: "Preneur d'assurance", "Nom de l'assuré")
const LABEL = /^(?:[#№]|[\p{L}][\p{L}\p{N} _./°#()'’-]{0,47})$/u;
const MARKDOWN_RULE = /^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$/;

// Keys of a town alone, without its street: "stad", "city", "Ort".
const TOWN_KEYS = new Set('city town woonplaats plaats stad ort wohnort stadt ville localite commune gemeente ciudad localidad poblacion citta localita comune miasto miejscowosc localidade cidade concelho'.split(' '));

function isTownKey(key: string): boolean {
  return key.length <= 24 && TOWN_KEYS.has(normaliseKey(key));
}

// Keys of a town's own facts: beside them a town under its key ("city") is the subject of the
// record, not where someone lives (QA 2026-11-27c: {"city": "Amsterdam", "population": 921402} was
// masked as an address; a town alone is no personal data, decision 0021). A place's coordinates
// count only without a name or a person's key beside them (a person's location has them too).
const TOWN_FACTS = new Set(
  'population inwoners einwohner habitants populacao poblacion popolazione populacja area oppervlakte flache superficie elevation altitude hoogte timezone capital hoofdstad mayor burgemeester burgermeister maire'.split(' '),
);
const PLACE_COORDINATES = new Set('lat lon lng latitude longitude coordinates coords geo'.split(' '));

/** Whether `keys` (the town's object's or block's) are a town's facts and name no person (see TOWN_FACTS). */
function townAmongItsFacts(keys: readonly string[] | undefined): boolean {
  if (keys === undefined) return false;
  let facts = false;
  let coordinates = false;
  let named = false;
  for (const key of keys) {
    if (key.length > 48) continue;
    const k = normaliseKey(key);
    if (TOWN_FACTS.has(k)) facts = true;
    else if (PLACE_COORDINATES.has(k)) coordinates = true;
    else if (GENERIC_NAME_KEYS.has(k)) named = true;
    else if (!isTownKey(key) && isPersonalKey(key)) return false;
  }
  return facts || (coordinates && !named);
}

/**
 * Which columns of a header hold towns, when the header's other keys name nothing we know (counts,
 * amounts: "stad,aantal_claims,gemiddeld_bedrag"); else null. In such a table a row whose other
 * cells are numbers is an aggregate by town, not a person's address (QA 2026-11-27: every town of
 * such a CSV was masked as an address).
 */
function townColumns(keys: readonly string[]): boolean[] | null {
  const towns = keys.map((key) => key.length <= 48 && TOWN_KEYS.has(normaliseKey(key)));
  if (!towns.some(Boolean)) return null;
  return keys.every((key, c) => towns[c] || keyKind(key) === null) ? towns : null;
}

const NUMBER_CELL = /^[-+]?[€$£]?[ ]?\d[\d.,' ]*(?:[ ]?(?:%|€|\$|£|eur|euro|k|m))?$/i;

/** Whether every cell of a row but the town columns' is a number (and there is one at least). */
function othersAreNumbers(text: string, row: Cell[], towns: readonly boolean[]): boolean {
  let numbers = 0;
  for (let c = 0; c < row.length; c++) {
    if (towns[c]) continue;
    const [s, e] = trimmed(text, row[c]![0], row[c]![1]);
    if (e - s > 24 || !NUMBER_CELL.test(text.slice(s, e))) return false;
    numbers++;
  }
  return numbers > 0;
}

/** A header row: every cell a short label, and at least one of them a key we know. */
function headerKeys(text: string, cells: Cell[]): string[] | null {
  if (cells.length < 2) return null;
  const keys: string[] = [];
  // Every cell a short label first (cheap), and only then is any of them looked up as a key.
  for (const [s, e] of cells) {
    const [a, b] = trimmed(text, s, e);
    if (b - a > 48 || b === a) return null;
    const label = text.slice(a, b);
    if (!LABEL.test(label)) return null;
    keys.push(label);
  }
  return keys.some((key) => keyKind(key) !== null || isChildColumn(key)) ? keys : null;
}

// "Naam: …", "name=…", "Date de naissance : …", "- E-mail: …": a label, then ':' or '=', then the value.
const KEY_VALUE_LINE = /^[ \t]{0,32}(?:[-*•>][ \t]{1,4})?(?:\*\*)?([\p{L}][\p{L}\p{N} _./°#()'-]{0,47}?)(?:\*\*)?[ \t]{0,8}(?::|=)(?:\*\*)?[ \t]{0,8}(.*)$/u;
// A value under a "name" key on a line ends at a comma or semicolon: "kontakt: ole richter, tel. …".
const NAME_END = /[,;|]/;
// Any other value ends where a sentence follows it on the line ("Address: 1 Baker Street, London.
// Please send the invoice there"): a full stop, then at least three words. Lines are bounded.
const SENTENCE_AFTER = /[.!?][ \t]+(?=\S+[ \t]+\S+[ \t]+\S)/g;
// A street type's abbreviation is no sentence's end: "Adres: ul. Długa 5, 31-147 Kraków" was cut
// after "ul." and the street sent in clear.
const ABBREVIATION_BEFORE = /(?:^|[ \t(])(?:ul|al|pl|os|av|avda|pza|bd|str|nr|no|n)$/iu;

/** Where a sentence starts after a value on a key's line, or -1 (see SENTENCE_AFTER). */
function sentenceAfter(value: string): number {
  SENTENCE_AFTER.lastIndex = 0;
  for (let m = SENTENCE_AFTER.exec(value); m; m = SENTENCE_AFTER.exec(value)) {
    if (m[0][0] !== '.' || !ABBREVIATION_BEFORE.test(value.slice(Math.max(0, m.index - 5), m.index))) return m.index;
  }
  return -1;
}
const TRAILING_PUNCTUATION = /[.,;:!?)\]]+$/;

// A vCard's properties that the key-value reading cannot see ("ADR;TYPE=home:" has parameters
// between its name and the colon) or types wrong: the birthday, also as "19790101" or "--0412", and
// the address, whose fields are post-office box; extended address; street; locality; region; postal
// code; country (RFC 6350 §6.3.1). Read as one value, the street lost its particle ("Van
// Speijkstraat 22" → "Van [ADDRESS_1]") and the town and postcode went out in clear (QA
// 2026-11-27). LABEL is vCard 3's printed address. Lines are bounded (MAX_HEADER_LINE).
const VCARD_PROPERTY = /^[ \t]{0,8}(?:item\d{1,3}\.)?(BDAY|ADR|LABEL)(?:;[^:\n]{0,200})?:(.*)$/i;
const VCARD_BIRTHDAY = /^(?:\d{4}-?\d{2}-?\d{2}|--\d{2}-?\d{2})(?:T[\dZ:+-]{2,20})?$/;
// The ADR fields that point to a household: box, extended address, street, locality, postal code;
// the region and the country are shared by millions and stay for the model to read.
const VCARD_ADDRESS_FIELDS = new Set([0, 1, 2, 3, 5]);

/** Whether the text holds a vCard (two indexOf calls: most texts do not). */
function holdsVCard(text: string): boolean {
  return text.indexOf('BEGIN:VCARD') >= 0 || text.indexOf('begin:vcard') >= 0;
}

/** Types a vCard's BDAY, ADR or LABEL line; false when the line is none of them. */
function vCardProperty(text: string, line: Line, out: Collector): boolean {
  const lineText = text.slice(line.start, line.end);
  const m = VCARD_PROPERTY.exec(lineText);
  if (m === null) return false;
  const name = m[1]!.toUpperCase();
  const valueStart = line.start + lineText.length - m[2]!.length;
  const push = (type: EntityType, start: number, end: number) => {
    [start, end] = trimmed(text, start, end);
    if (end > start && end - start <= MAX_CELL) out.found.push({ type, start, end, text: text.slice(start, end), checksum: false });
  };
  if (name === 'BDAY') {
    const [start, end] = trimmed(text, valueStart, line.end);
    const value = text.slice(start, end);
    if (VCARD_BIRTHDAY.test(value) || DATE_VALUE.test(value)) push('DATE_OF_BIRTH', start, end);
    return true;
  }
  if (name === 'LABEL') {
    push('ADDRESS', valueStart, line.end);
    return true;
  }
  // ADR: the fields split at ";" that no backslash escapes.
  let field = 0;
  let from = valueStart;
  for (let i = valueStart; i <= line.end; i++) {
    const c = i < line.end ? text.charCodeAt(i) : 59;
    if (c === 92) {
      i++;
      continue;
    }
    if (c !== 59) continue;
    if (VCARD_ADDRESS_FIELDS.has(field)) push('ADDRESS', from, i);
    field++;
    from = i + 1;
  }
  return true;
}

// "Surname, First name" under a name's label, as registers, forms and attendee lists write it, one
// name or several joined by ";": "Aangever: Janssen, Pieter-Jan", "Attendees: Öztürk, Mehmet;
// Yılmaz, Ayşe", "NAME: MÜLLER, KATHARINA". A name's value ends at its comma ("kontakt: ole
// richter, tel. …"), so the first name was left to the person recognizer, and in capitals or after
// the first ";" nothing was read (QA 2026-11-27). Here the comma is the name's when a first name the
// lists know follows it, or a surname they know comes before it, and the name then ends its value
// or a ";" or a bracket follows. Bounded parts, one line: linear.
const SURNAME_FIRST_Y =
  /((?:(?:van|de|der|den|von|ter|ten|du|le|la|di|da)[ ]){0,3}\p{Lu}[\p{L}'’-]{1,40}(?:[ ]\p{Lu}[\p{L}'’-]{1,40})?),[ ]{0,2}(\p{Lu}[\p{L}'’-]{1,40}(?:[ ]\p{Lu}[\p{L}'’-]{1,40})?)(?=[ \t]*(?:[;(]|$))/uy;
const NAME_LIST_SEPARATOR_Y = /[ \t]*;[ \t]*/y;

/** The spans of "Surname, First name" names that make up the start of `value` (see SURNAME_FIRST_Y), or none. */
function surnameFirstNames(value: string): Array<[number, number]> {
  if (value.indexOf(',') < 0) return [];
  const names: Array<[number, number]> = [];
  let at = 0;
  while (at < value.length) {
    SURNAME_FIRST_Y.lastIndex = at;
    const m = SURNAME_FIRST_Y.exec(value);
    if (m === null) break;
    const surname = m[1]!.slice(m[1]!.lastIndexOf(' ') + 1);
    const first = m[2]!.split(/[ -]/)[0]!;
    if (isNonNameWord(surname) || isNonNameWord(first)) break;
    // "Client: Dupont, Paris", "Name: Settings, General": a town or a word after the comma is no first name.
    if (isAmbiguousFirstName(capitalised(first))) break;
    if (!isKnownFirstName(capitalised(first)) && !isKnownLastName(capitalised(surname))) break;
    names.push([at, SURNAME_FIRST_Y.lastIndex]);
    NAME_LIST_SEPARATOR_Y.lastIndex = SURNAME_FIRST_Y.lastIndex;
    if (!NAME_LIST_SEPARATOR_Y.test(value)) break;
    at = NAME_LIST_SEPARATOR_Y.lastIndex;
  }
  return names;
}

// Children listed under a plural label, each with a birth date or an age in brackets: "Kinder: Leon
// (*03.02.2005), Mia (*21.09.2008)", "kinderen: Sem (geb. 12-04-2012) en Tess (geb. 03-08-2015)",
// "Children: Oliver (born 4 May 2012) and Isla (born 9 June 2015)". The dates were masked and the
// names left (QA 2026-11-27); "Sohn:", "zoon", "daughter" name one child and were read already.
// "children", "kids" are also a tree's or a component's key ("children: Button (2)"), so each item
// must be a capitalised name and a bracket holding a birth date (a first name the lists know may
// have an age instead: "Noah (7)"), the items joined by commas or "and", read from the label on up
// to the first thing that is no such item.
const CHILD_LIST_KEYS = new Set(
  'kinder kinderen kids children enfants sohne tochter zonen dochters sons daughters fils filles hijos hijas figli figlie dzieci'.split(' '),
);
const MAX_CHILD_LIST = 300;
const MAX_CHILD_LIST_KEY = 12;
const CHILD_ITEM = /(\p{Lu}\p{Ll}+(?:-\p{Lu}\p{Ll}+)?)[ \t]{0,4}\(([^()\n]{1,40})\)/uy;
// A birth's sign before the date in the bracket: "*", "geb.", "born", "née", "nato", "ur.".
const BIRTH_SIGN = /^[ \t]*(?:\*|geb\.?|geboren|born|b\.|n[ée]e?|nat[oa]|nacid[oa]|ur\.)?[ \t]*/iu;
const CHILD_JOIN = /[ \t]{0,4}(?:[,;&+][ \t]{0,4})?(?:(?:en|und|and|et|e|y|i|sowie)[ \t]{1,4})?/iuy;

/** Reads "Leon (*03.02.2005), Mia (*21.09.2008)" at `from` as children's names, up to the first thing that is no such item. */
function childList(text: string, from: number, value: string, out: Collector): void {
  const names: Array<[number, number]> = [];
  let at = 0;
  const end = value.replace(/[ \t.]+$/, '').length;
  while (at < end) {
    CHILD_JOIN.lastIndex = at;
    if (names.length > 0 && CHILD_JOIN.test(value)) at = CHILD_JOIN.lastIndex;
    CHILD_ITEM.lastIndex = at;
    const m = CHILD_ITEM.exec(value);
    if (m === null || !/\d/.test(m[2]!) || isNonNameWord(m[1]!)) break;
    const inside = m[2]!.replace(BIRTH_SIGN, '').trim();
    if (!DATE_VALUE.test(inside) && !/^(?:19|20)\d\d$/.test(inside) && !isKnownFirstName(m[1]!)) break;
    names.push([from + at, from + at + m[1]!.length]);
    at = CHILD_ITEM.lastIndex;
  }
  for (const [start, stop] of names) out.found.push({ type: 'PERSON', start, end: stop, text: text.slice(start, stop), checksum: false });
}

// A row of a CSV without a header ("Jansen,Pieter,06-11223344,p.jansen@gmail.com"), as an export
// or a register's rows pasted alone write it: a cell that is a surname the lists know beside a cell
// that is a first name they know, in either order, are a person's surname and first name (QA
// 2026-11-27: the first name was masked and the surname beside it sent in clear). Each is masked as
// a cell of its own, as under "achternaam" and "voornaam" columns. A row has three cells at least,
// each a short one (a line of prose is cut into long ones); a first name that is also a word, town
// or brand ("Paris", "Mark") does not count, nor a surname that is a word.
const FIRST_NAME_CELL = /^\p{Lu}\p{Ll}{1,30}(?:-\p{Lu}\p{Ll}{1,30})?$/u;

function surnameCell(value: string): boolean {
  if (!SURNAME_CELL.test(value)) return false;
  const last = value.slice(value.lastIndexOf(' ') + 1);
  return isKnownLastName(last) && !isNonNameWord(last) && !isAmbiguousFirstName(last);
}

function firstNameCell(value: string): boolean {
  if (!FIRST_NAME_CELL.test(value) || isNonNameWord(value)) return false;
  const first = value.split('-')[0]!;
  return isKnownFirstName(first) && !isAmbiguousFirstName(first);
}

/** Masks a surname cell and a first-name cell side by side in a row without a header (see FIRST_NAME_CELL). */
function headerlessNames(text: string, cells: readonly Cell[], out: Collector): void {
  if (cells.length < 3) return;
  for (let c = 0; c + 1 < cells.length; c++) {
    const [as, ae] = trimmed(text, cells[c]![0], cells[c]![1]);
    const [bs, be] = trimmed(text, cells[c + 1]![0], cells[c + 1]![1]);
    if (ae - as < 2 || be - bs < 2) continue;
    const a = text.slice(as, ae);
    const b = text.slice(bs, be);
    if (!((surnameCell(a) && firstNameCell(b)) || (firstNameCell(a) && surnameCell(b)))) continue;
    out.found.push({ type: 'PERSON', start: as, end: ae, text: a, checksum: false });
    out.found.push({ type: 'PERSON', start: bs, end: be, text: b, checksum: false });
    c++;
  }
}

/** A text of one short line without any other sign of structure, read as a CSV row without a header. */
function headerlessRow(text: string, sep: number, out: Collector): void {
  if (text.length > MAX_HEADER_LINE / 2 || sep < 0 || sep === 124 || text.indexOf('\n') >= 0) return;
  const cells = cellsOf(text, { start: 0, end: text.length }, sep, 52);
  if (cells !== null) headerlessNames(text, cells, out);
}

// An identifier right after its label, without the colon of a key-value line: "Steuer-ID 12 345 678
// 903", "NIR 1 85 05 78 006 084 36", "meine IdNr lautet …", "mon n° de sécu est …". After "NIR :"
// the value is its key's whatever its check digits (a mistyped number is still the person's); without
// the colon it went out in clear when its check digits failed (QA 2026-11-27). The value is a number
// written in groups, read where a line of at most MAX_HEADER_LINE characters holds a digit; its label
// is looked for in the LABEL_BEFORE characters before it on the same line.
const GROUPED_ID = /(?<![\p{L}\p{N}.,/+-])\d{1,2}[ .]\d[\dAaBb .]{6,22}\d(?![\p{L}\p{N}])/gu;
const ID_LABEL_BEFORE =
  /(?<![\p{L}])(?:(steuer[- ]?id|steuer[- ]?identifikationsnummer|steuerliche[ ]identifikationsnummer|idnr\.?|id-nr\.?)|nir|n°[ ]?(?:de[ ])?s[ée]cu(?:rit[ée][ ]sociale)?|num[ée]ro[ ]de[ ]s[ée]curit[ée][ ]sociale)(?:[ \u00a0](?:ist|lautet|est))?[ \u00a0]{1,3}$/iu;
const LABEL_BEFORE = 40;
const ID_LABEL_WORD = /steuer|idnr|id-nr|nir|s[ée]cu/i;

function identifiersAfterLabel(text: string, line: Line, out: Collector): void {
  const lineText = text.slice(line.start, line.end);
  // Most lines with a digit have no such label: a search for its words rules them out first.
  if (!ID_LABEL_WORD.test(lineText)) return;
  GROUPED_ID.lastIndex = 0;
  for (let m = GROUPED_ID.exec(lineText); m; m = GROUPED_ID.exec(lineText)) {
    const label = ID_LABEL_BEFORE.exec(lineText.slice(Math.max(0, m.index - LABEL_BEFORE), m.index));
    if (label === null) continue;
    const compact = m[0].replace(/[ .]/g, '');
    // A Steuer-ID has 11 digits; a NIR 15 characters, its département maybe 2A or 2B.
    const steuer = label[1] !== undefined;
    if (steuer ? !/^\d{11}$/.test(compact) : !/^\d{5}(?:\d\d|2[AaBb])\d{8}$/.test(compact)) continue;
    out.value(steuer ? 'Steuer-ID' : 'NIR', line.start + m.index, line.start + m.index + m[0].length);
  }
}

function lineStructures(text: string, out: Collector): void {
  const lines = linesOf(text);
  // Most texts hold no "=": their lines are not walked once more for pairs.
  const mayHoldPairs = text.indexOf('=') >= 0;
  const vCard = holdsVCard(text);
  const blockCache: Array<BlockLine | undefined> = [];
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k]!;
    const length = line.end - line.start;
    if (vCard && length <= MAX_HEADER_LINE && vCardProperty(text, line, out)) continue;
    // A log line of unquoted pairs ("INFO signup first_name=Oliver last_name=Bennett"): each value
    // is its key's, up to the next blank. Read as one "key: value" line, the first value ran on over
    // the other pairs and the line's other names went out in clear.
    if (mayHoldPairs && length <= MAX_LOG_LINE && logPairs(text, line, out)) continue;
    if (mayHoldPairs && length <= MAX_LOG_LINE && formPairs(text, line, out)) continue;
    // Headers and key-value lines are short; a paragraph of prose is not read further.
    if (length > MAX_HEADER_LINE) continue;
    const { keySign, sep, digit } = signsOf(text, line);
    if (digit) identifiersAfterLabel(text, line, out);
    if (!keySign && sep < 0) {
      // Only a label alone on its line over a value can be here.
      if (length <= 48) loneLabel(text, lines, k, out);
      continue;
    }
    if (sep >= 0 && length <= MAX_HEADER_LINE / 2) {
      const cells = cellsOf(text, line, sep, 52);
      const keys = cells && headerKeys(text, cells);
      if (keys) {
        const thing = aboutThings(keys);
        // A bare "name" column is a person's when another column holds personal data ("naam;email",
        // "name,city"); a role ("Owner", "Klant") is not enough: its cells may be a team's.
        const people = !thing && keys.some((key) => isPersonalKey(key) && keyKind(key) !== 'NAME');
        const towns = townColumns(keys);
        let r = k + 1;
        // The rule line under a Markdown header; only a short one is tested (the regex's runs of
        // blanks may trade characters, quadratic in a long line of them).
        const rule = r < lines.length ? lines[r]! : null;
        if (sep === 124 && rule && rule.end - rule.start <= MAX_HEADER_LINE && MARKDOWN_RULE.test(text.slice(rule.start, rule.end))) r++;
        let rows = 0;
        for (; r < lines.length; r++) {
          const row = cellsOf(text, lines[r]!, sep);
          if (row === null || row.length !== keys.length) break;
          const counts = towns !== null && othersAreNumbers(text, row, towns);
          row.forEach(([s, e], c) => {
            if (counts && towns![c]) return;
            if (!out.value(keys[c]!, s, e, thing, true, people) && thing) out.quiet.push(s, e);
          });
          rows++;
        }
        if (rows > 0) {
          k = r - 1;
          continue;
        }
      }
      if (!keys && cells !== null && sep !== 124) headerlessNames(text, cells, out);
    }
    if (!keySign) continue;
    const lineText = text.slice(line.start, line.end);
    const kv = KEY_VALUE_LINE.exec(lineText);
    if (kv !== null) {
      const key = kv[1]!;
      const valueStart = line.start + lineText.length - kv[2]!.length;
      if (kv[2]!.trim() === '') {
        // A label alone on its line ("Geburtsdatum:" / "Date of birth"): the next line is its value.
        if (k + 1 < lines.length && lines[k + 1]!.end - lines[k + 1]!.start <= 80) out.value(key, lines[k + 1]!.start, lines[k + 1]!.end);
        continue;
      }
      if (kv[2]!.startsWith('"') || kv[2]!.startsWith("'") || kv[2]!.startsWith('{') || kv[2]!.startsWith('[')) continue;
      let valueEnd = line.end;
      const kind = keyKind(key);
      const value = kv[2]!;
      // (The length first: most keys of no kind are a sentence's words before a colon, and
      // normalising one costs more than the lookup.)
      if (kind === null && key.length <= MAX_CHILD_LIST_KEY && value.length <= MAX_CHILD_LIST && CHILD_LIST_KEYS.has(normaliseKey(key))) {
        childList(text, valueStart, value, out);
        continue;
      }
      if (kind === 'PERSON' || kind === 'NAME') {
        const inverted = surnameFirstNames(value);
        if (inverted.length > 0) {
          for (const [s, e] of inverted) out.value(key, valueStart + s, valueStart + e);
          continue;
        }
      }
      if (kind === 'PERSON' || kind === 'NAME' || kind === 'CUSTOMER_REF') {
        const cut = NAME_END.exec(value);
        if (cut) valueEnd = valueStart + cut.index;
      } else if (kind === 'EMAIL') {
        // An address is one word: "email: jan@example.nl. Please reply" keeps the request.
        const space = value.search(/\s/);
        const word = space < 0 ? value : value.slice(0, space);
        valueEnd = valueStart + word.replace(TRAILING_PUNCTUATION, '').length;
      } else {
        const cut = sentenceAfter(value);
        if (cut >= 0) valueEnd = valueStart + cut;
      }
      out.value(key, valueStart, valueEnd, undefined, false, false, isBareNameKey(key) || isTownKey(key) ? blockKeys(text, lines, k, line.start + lineText.indexOf(key), blockCache) : undefined);
      continue;
    }
  }
}

// A YAML block's key: its indent, an item's dash, the key, a colon.
const BLOCK_KEY = /^[ \t]*(-[ \t]+)?([\p{L}_][\p{L}\p{N}_.-]{0,47})[ \t]*:/u;
const BLOCK_LINES = 20;
const BLOCK_KEY_READ = 80;

/**
 * The keys beside the key at `at` on line k, in its YAML block or key-value block: the lines around
 * it whose key stands in the same column, up to a line indented less (an item that opens with "- "
 * starts at its dash's line). At most BLOCK_LINES lines each way, each read over BLOCK_KEY_READ
 * characters: the cost per name line is bounded.
 */
function blockKeys(text: string, lines: readonly Line[], k: number, at: number, cache: Array<BlockLine | undefined>): string[] {
  const column = at - lines[k]!.start;
  const keys: string[] = [];
  // Down, an item's dash ends the item (the next one's key is not this one's); up, it opens it.
  const read = (j: number, up: boolean): boolean => {
    const line = (cache[j] ??= blockLine(text, lines[j]!));
    if (line.blank) return true;
    if (line.key !== null && line.keyAt === column) {
      if (line.dash && !up) return false;
      keys.push(line.key);
      return !line.dash;
    }
    return line.indent > column || (line.indent === column && line.key === null);
  };
  const dashed = /^[ \t]*-[ \t]/.test(text.slice(lines[k]!.start, at));
  for (let j = k + 1; j < lines.length && j <= k + BLOCK_LINES; j++) if (!read(j, false)) break;
  if (!dashed) for (let j = k - 1; j >= 0 && j >= k - BLOCK_LINES; j--) if (!read(j, true)) break;
  return keys;
}

interface BlockLine {
  blank: boolean;
  indent: number;
  dash: boolean;
  key: string | null;
  keyAt: number;
}

/** A line's indent and key as blockKeys reads them, over its first BLOCK_KEY_READ characters. */
function blockLine(text: string, line: Line): BlockLine {
  const lineText = text.slice(line.start, Math.min(line.end, line.start + BLOCK_KEY_READ));
  let indent = 0;
  while (indent < lineText.length && (lineText.charCodeAt(indent) === 32 || lineText.charCodeAt(indent) === 9)) indent++;
  if (indent === lineText.length) return { blank: true, indent, dash: false, key: null, keyAt: -1 };
  const m = BLOCK_KEY.exec(lineText);
  const dash = m !== null && m[1] !== undefined;
  return { blank: false, indent, dash, key: m === null ? null : m[2]!, keyAt: m === null ? -1 : indent + (dash ? m[1]!.length : 0) };
}

/**
 * One pass over a line: whether it holds a key sign (':' or '='), and the separator its cells would
 * be split at (a Markdown row's '|', else a tab, ';' or ','), or -1.
 */
function signsOf(text: string, line: Line): { keySign: boolean; sep: number; digit: boolean } {
  let keySign = false;
  let digit = false;
  let pipe = false;
  let tab = false;
  let semicolon = false;
  let comma = false;
  for (let i = line.start; i < line.end; i++) {
    const c = text.charCodeAt(i);
    if (c === 58 || c === 61) keySign = true;
    else if (c === 124) pipe = true;
    else if (c === 9) tab = true;
    else if (c === 59) semicolon = true;
    else if (c === 44) comma = true;
    else if (c >= 48 && c <= 57) digit = true;
  }
  const first = text.charCodeAt(trimmed(text, line.start, line.end)[0]);
  return { keySign, sep: first === 124 && pipe ? 124 : tab ? 9 : semicolon ? 59 : comma ? 44 : -1, digit };
}

/** A label alone on its line, without a colon ("Date of birth"), over a short value line. */
function loneLabel(text: string, lines: Line[], k: number, out: Collector): void {
  const line = lines[k]!;
  const [a, b] = trimmed(text, line.start, line.end);
  if (b - a > 48 || b === a || k + 1 >= lines.length) return;
  const label = text.slice(a, b);
  const kind = LABEL.test(label) ? keyKind(label) : null;
  if (kind !== null && kind !== 'THING' && kind !== 'NAME') {
    const next = lines[k + 1]!;
    if (next.end - next.start <= 80) out.value(label, next.start, next.end);
  }
}

const MAX_HEADER_LINE = 400;

// An unquoted key=value pair that starts a word of a line: the key a program's name for a field, the
// value up to the next blank. Keys are bounded, and a key starts only after a blank or a bracket,
// so the scan is linear.
const LOG_PAIR = /(?<=^|[ \t[(,;|])([\p{L}_][\p{L}\p{N}_.-]{0,47})=([^\s"'`=][^\s"'`]{0,199})(?=$|[ \t,;|)\]])/gu;
const MAX_LOG_LINE = 2000;

/** Types each value of a line holding at least two unquoted key=value pairs by its key; false when the line holds fewer. */
function logPairs(text: string, line: Line, out: Collector): boolean {
  if (line.end - line.start < 7) return false;
  // Counted within the line: indexOf would read on to the text's end on every line without one.
  let signs = 0;
  for (let i = line.start; i < line.end && signs < 2; i++) if (text.charCodeAt(i) === 61) signs++;
  if (signs < 2) return false;
  const lineText = text.slice(line.start, line.end);
  const pairs: Array<[string, number, number]> = [];
  LOG_PAIR.lastIndex = 0;
  for (let m = LOG_PAIR.exec(lineText); m; m = LOG_PAIR.exec(lineText)) {
    const value = m[2]!.replace(TRAILING_PUNCTUATION, '');
    const start = line.start + m.index + m[1]!.length + 1;
    pairs.push([m[1]!, start, start + value.length]);
  }
  if (pairs.length < 2) return false;
  for (const [key, start, end] of pairs) out.value(key, start, end);
  return true;
}

// A form's body outside a URL ("name=Ruben Dijkstra&phone=+31612345678", a request logged or pasted,
// read decoded too: url-encoded.ts): each value is its key's, up to the next "&". Read as one
// "key: value" line, the first value ran on over the other pairs, and its placeholder swallowed them.
const FORM_KEY_Y = /([\p{L}_][\p{L}\p{N}_.[\]-]{0,47})=/uy;
const FORM_KEY_CHAR = /[\p{L}\p{N}_.[\]-]/u;
const MAX_FORM_KEY = 48;

/** The pairs of a form body on the line, each value by its key; false when the line holds none. */
function formPairs(text: string, line: Line, out: Collector): boolean {
  const lineText = text.slice(line.start, line.end);
  const firstAmp = lineText.indexOf('&');
  if (firstAmp < 0) return false;
  FORM_KEY_Y.lastIndex = firstAmp + 1;
  if (!FORM_KEY_Y.test(lineText)) return false;
  // The pair before the first "&" opens the form: its key ends at the last "=" before it.
  const sign = lineText.lastIndexOf('=', firstAmp);
  if (sign <= 0) return false;
  let at = sign;
  while (at > 0 && sign - at < MAX_FORM_KEY && FORM_KEY_CHAR.test(lineText[at - 1]!)) at--;
  if (at === sign) return false;
  // A URL's query is read as one (structure of URLs, url-encoded.ts).
  if (at > 0 && (lineText.charCodeAt(at - 1) === 63 || lineText.lastIndexOf('://', at) >= 0)) return false;
  const values: Array<[string, number, number]> = [];
  let spaced = false;
  while (at < lineText.length) {
    FORM_KEY_Y.lastIndex = at;
    const key = FORM_KEY_Y.exec(lineText);
    if (key === null) break;
    const start = at + key[0].length;
    const amp = lineText.indexOf('&', start);
    let end = amp < 0 ? lineText.length : amp;
    if (amp >= 0) spaced ||= /\s/.test(lineText.slice(start, end));
    // The last value ends where the form does: at a blank, unless its values hold blanks (decoded).
    else if (!spaced) end = start + lineText.slice(start).search(/\s|$/);
    values.push([key[1]!, start, end]);
    if (amp < 0) break;
    at = amp + 1;
  }
  if (values.length < 2) return false;
  for (const [key, start, end] of values) out.value(key, line.start + start, line.start + end);
  return true;
}

/** Whether the text may hold any structure this module reads (cheap: a few indexOf calls). */
function mayHoldStructure(text: string): boolean {
  return (
    text.indexOf('\n') >= 0 ||
    text.indexOf(':') >= 0 ||
    text.indexOf('=') >= 0 ||
    text.indexOf('"') >= 0 ||
    text.indexOf('|') >= 0 ||
    text.indexOf('VALUES') >= 0 ||
    text.indexOf('values') >= 0 ||
    // "WHERE achternaam LIKE 'Oberhuber%'" on one line has none of the signs above.
    text.indexOf("LIKE '") >= 0 ||
    text.indexOf("like '") >= 0
  );
}

/** Whether any key of the text's objects or tables says it is about things ("price", "sku", "version"). */
function thingContextOf(text: string): boolean {
  return aboutThings(keysOf(text));
}

function* keysOf(text: string): Generator<string> {
  for (const m of text.matchAll(THING_KEY)) yield m[1]!;
}
const THING_KEY = /(?:^|["'|,;\t\n{])[ \t]{0,8}([\p{L}_][\p{L}\p{N}_ -]{0,23}?)[ \t]{0,8}["']?[ \t]{0,8}(?=[:=|,;\t\n])/gu;

/** A table whose columns name personal data: its header row, and the part of the text its rows fill. */
export interface TableSpan {
  header: string;
  /** Where its first row starts (after the header line). */
  rowsStart: number;
  /** Where its last row ends. */
  end: number;
}

/** The header row of a table that starts at `line` (CSV, TSV, Markdown), when its columns name personal data. */
function headerRowAt(text: string, line: Line): { sep: number } | null {
  if (line.end - line.start > MAX_HEADER_LINE / 2) return null;
  const { sep } = signsOf(text, line);
  if (sep < 0) return null;
  const cells = cellsOf(text, line, sep, 52);
  const keys = cells && headerKeys(text, cells);
  return keys && !aboutThings(keys) ? { sep } : null;
}

/**
 * The tables of a text whose columns name personal data, wherever they start (under a title, after
 * prose, one after another): a document cut into chunks repeats a table's header over each chunk
 * that starts among its rows, so that those rows are still read by their columns (a name in a
 * "naam" column has no cue of its own). A table's rows run on while lines hold its separator.
 * One pass over the lines; a header is judged on at most MAX_HEADER_LINE / 2 characters.
 */
export function tableSpans(text: string): TableSpan[] {
  const spans: TableSpan[] = [];
  const lineAt = (start: number): Line => {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    return { start, end: end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end };
  };
  const holds = (line: Line, sep: number) => {
    for (let i = line.start; i < line.end; i++) if (text.charCodeAt(i) === sep) return true;
    return false;
  };
  let start = 0;
  while (start < text.length) {
    const line = lineAt(start);
    const next = text.indexOf('\n', line.end);
    if (next < 0) break;
    const found = headerRowAt(text, line);
    if (found === null) {
      start = next + 1;
      continue;
    }
    let end = -1;
    let rowStart = next + 1;
    while (rowStart < text.length) {
      const row = lineAt(rowStart);
      if (!holds(row, found.sep)) break;
      end = row.end;
      const after = text.indexOf('\n', row.end);
      if (after < 0) break;
      rowStart = after + 1;
    }
    if (end >= 0) spans.push({ header: text.slice(line.start, line.end), rowsStart: next + 1, end });
    start = end >= 0 ? end : next + 1;
  }
  return spans;
}

/** `queries`: whether to read URL query strings (a URL token read decoded has had its own read as written). */
export function findStructured(text: string, queries = true): StructureFindings {
  if (!mayHoldStructure(text)) {
    // "Jansen,Pieter,06-11223344,p.jansen@gmail.com" alone: a CSV row holds none of the signs above.
    // "Steuer-ID 12 345 678 903" alone, too.
    if (text.length > MAX_HEADER_LINE) return { found: [], quiet: [] };
    const { sep, digit } = signsOf(text, { start: 0, end: text.length });
    if (!digit && sep < 0) return { found: [], quiet: [] };
    const row = new Collector(text);
    if (digit) identifiersAfterLabel(text, { start: 0, end: text.length }, row);
    headerlessRow(text, sep, row);
    return { found: row.found, quiet: row.quiet };
  }
  const out = new Collector(text);
  keyedLiterals(text, out);
  sqlInserts(text, out);
  if (queries) queryPairs(text, out);
  lineStructures(text, out);
  return { found: out.found, quiet: out.quiet };
}

/**
 * The text with each opening quote of a literal that starts with a capital turned into '"', so
 * that the person recognizer reads "greet('Ethan Moss')" as it reads prose (it refuses a name
 * right after an apostrophe, which is usually "O'Brien" or "l'Europe"). Same length, same offsets;
 * null when there is no such quote.
 */
export function literalsAsProse(text: string): string | null {
  let chars: string[] | null = null;
  for (let i = text.indexOf("'"); i >= 0; i = text.indexOf("'", i + 1)) {
    const p = i > 0 ? text.charCodeAt(i - 1) : 32;
    const next = text.charCodeAt(i + 1);
    const opens = !(p > 127 || (p >= 48 && p <= 57) || (p >= 65 && p <= 90) || (p >= 97 && p <= 122));
    if (opens && next >= 65 && next <= 90) {
      chars ??= text.split('');
      chars[i] = '"';
    }
  }
  return chars === null ? null : chars.join('');
}
