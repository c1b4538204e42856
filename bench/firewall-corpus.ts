// Texts for the firewall throughput benchmark (bench/firewall.ts): typical chat prompts, long prose
// documents, digit-heavy text and realistic ~2,000-character prompts, in nl/en/fr/de. Written for
// this benchmark; the personal data in them is invented (numbers pass their check digits so that
// the recognizers do their full work on them). Nothing here is part of the evaluation set.
import type { Language } from '../src/firewall/types.js';

export interface BenchText {
  lang: Language;
  text: string;
}

/** What users type into a chat box: questions, requests, pasted snippets; some carry numbers. */
export const CHAT_PROMPTS: BenchText[] = [
  // nl
  { lang: 'nl', text: 'Kun je deze alinea herschrijven zodat hij wat vriendelijker klinkt? We willen de klant niet afschrikken.' },
  { lang: 'nl', text: 'Hoi, ik zoek een recept voor een snelle vegetarische pasta voor vier personen, liefst zonder champignons.' },
  {
    lang: 'nl',
    text: 'Schrijf een korte mail aan mevrouw de Vries dat haar afspraak van dinsdag verplaatst is naar donderdag 14:30. Ze kan bellen op 020 794 6120 als het niet uitkomt.',
  },
  {
    lang: 'nl',
    text: 'Vat de notulen van het teamoverleg samen in vijf punten. Pieter Bakker heeft toegezegd de planning voor Q3 bij te werken en Lotte regelt de nieuwe laptops. Het budget blijft gelijk, de deadline verschuift naar eind september.',
  },
  {
    lang: 'nl',
    text: 'Mijn bestelling 88421937 is nog steeds niet geleverd, terwijl ik al op 3 mei heb betaald (€ 59,95). Kun je een klachtbrief opstellen? Mijn IBAN is NL91 ABNA 0417 1643 00 voor de terugbetaling.',
  },
  { lang: 'nl', text: 'Wat is het verschil tussen een eenmanszaak en een bv als je net begint als zzp’er in de zorg?' },
  {
    lang: 'nl',
    text: 'Help me met een vacaturetekst voor een junior data-analist. Drie dagen per week op kantoor in Utrecht, salaris tussen 3.200 en 3.900 euro bruto per maand, start zo snel mogelijk. Toon: informeel maar professioneel.',
  },
  { lang: 'nl', text: 'Vertaal naar het Engels: “Wij danken u voor uw geduld en nemen zo spoedig mogelijk contact met u op.”' },
  // en
  { lang: 'en', text: 'Can you summarise this article in three bullet points for our internal newsletter? Keep it under a hundred words.' },
  { lang: 'en', text: 'What is the difference between a list and a tuple in Python, and when should I prefer one over the other?' },
  {
    lang: 'en',
    text: 'Draft a polite reply to Sarah Thompson: we received her complaint about order 4471902, the replacement ships on Monday 12 May and she can reach our support line on 020 7946 0018 if anything else goes wrong.',
  },
  {
    lang: 'en',
    text: 'Rewrite this paragraph for a non-technical audience: "The service scales horizontally behind a load balancer; each replica is stateless and sessions are kept in a shared cache with a fifteen-minute expiry."',
  },
  {
    lang: 'en',
    text: 'Our server at 192.168.10.24 keeps timing out after 30 seconds since the upgrade to version 2.14.3. Here is the log line: 2024-03-15 14:32:10 ERROR upstream timeout (30000 ms). What should I check first?',
  },
  { lang: 'en', text: 'Give me five ideas for a team outing in Amsterdam in June, for about twenty people, budget fifty euros per person.' },
  {
    lang: 'en',
    text: 'Please write a short cover letter for me. My name is Daniel Hughes, I have six years of experience in logistics planning, and I am applying for the operations lead role at a freight company in Rotterdam.',
  },
  { lang: 'en', text: 'Explain like I am twelve: why does the sky look blue during the day but red at sunset?' },
  // fr
  { lang: 'fr', text: 'Bonjour, pouvez-vous reformuler ce paragraphe de façon plus formelle pour un courrier à la mairie ?' },
  {
    lang: 'fr',
    text: 'Rédige un message pour M. Dupont : son rendez-vous du 12 juin est confirmé à 10 h, et il peut nous joindre au 01 42 68 53 00 en cas d’empêchement.',
  },
  { lang: 'fr', text: 'Quelle est la différence entre un CDD et un contrat d’intérim pour un étudiant qui cherche un job d’été ?' },
  {
    lang: 'fr',
    text: 'Peux-tu résumer ce compte rendu en quelques lignes ? La réunion a porté sur le budget 2025, la réorganisation de l’équipe commerciale et le lancement du nouveau site. Camille Martin présentera les chiffres définitifs la semaine prochaine.',
  },
  {
    lang: 'fr',
    text: 'J’ai passé commande le 2 avril (commande n° 20240402-117) pour un montant de 149,90 €, et je n’ai toujours rien reçu. Aide-moi à écrire une réclamation ferme mais polie.',
  },
  { lang: 'fr', text: 'Donne-moi un plan de révision sur deux semaines pour le bac de philosophie, avec une séance par jour.' },
  {
    lang: 'fr',
    text: 'Traduis en allemand : « Nous vous remercions de votre confiance et restons à votre disposition pour toute question complémentaire. »',
  },
  // de
  { lang: 'de', text: 'Kannst du mir eine höfliche Antwort an den Kunden schreiben, der sich über die lange Lieferzeit beschwert hat?' },
  { lang: 'de', text: 'Bitte fasse die wichtigsten Punkte des Vertrags in einfacher Sprache zusammen, ohne juristische Fachbegriffe.' },
  {
    lang: 'de',
    text: 'Schreib eine kurze Nachricht an Frau Schneider: Der Termin am Dienstag fällt aus, wir melden uns wegen eines neuen Termins. Sie erreicht mich unter 030 12345678.',
  },
  {
    lang: 'de',
    text: 'Unsere Rechnung 2024-0815 über 1.234,56 € ist seit 30 Tagen überfällig. Formuliere eine freundliche, aber bestimmte Zahlungserinnerung mit Frist bis zum 15.07.2024.',
  },
  { lang: 'de', text: 'Was ist der Unterschied zwischen einer GmbH und einer UG, wenn man mit wenig Startkapital gründen will?' },
  {
    lang: 'de',
    text: 'Erstelle eine Checkliste für den Umzug ins neue Büro: IT, Möbel, Post, Versicherungen, Schlüssel und die Information der Kunden. Lukas Weber übernimmt die Koordination, die Übergabe ist am Freitag.',
  },
  { lang: 'de', text: 'Erkläre mir bitte, wie eine Wärmepumpe im Winter funktioniert und ob sich das für einen Altbau lohnt.' },
];

// Prose paragraphs for the long documents: reports, minutes, articles. A few names, years and
// percentages, as in real documents; no identifiers.
const PROSE: Record<Language, string[]> = {
  nl: [
    'Het afgelopen jaar stond in het teken van groei en consolidatie. Na de fusie van de twee regionale kantoren is de organisatie opnieuw ingericht, waarbij de teams voor klantcontact en planning zijn samengevoegd. Dat leverde in de eerste maanden onrust op, maar de doorlooptijd van aanvragen is inmiddels met bijna een derde gedaald. Medewerkers geven in de tevredenheidsmeting aan dat de lijnen korter zijn geworden en dat besluiten sneller worden genomen.',
    'De gemeente heeft in het voorjaar een nieuwe visie op de binnenstad gepresenteerd. Daarin wordt ingezet op minder autoverkeer, meer groen en een betere spreiding van de horeca. Ondernemers reageren verdeeld: sommigen zien kansen voor een aantrekkelijker winkelgebied, anderen vrezen dat bezoekers uit de omliggende dorpen wegblijven als parkeren duurder en lastiger wordt. De raad bespreekt het voorstel na de zomer.',
    'Tijdens het overleg is uitgebreid gesproken over de werkdruk in het team. Meerdere collega’s gaven aan dat de combinatie van projectwerk en dagelijkse ondersteuning niet langer vol te houden is. Er is afgesproken om de komende zes weken bij te houden hoeveel tijd aan welke taken wordt besteed, zodat het management met feiten kan beslissen over extra capaciteit. Sanne Visser coördineert de inventarisatie.',
    'Onderzoek laat zien dat jongeren steeds vaker via sociale media op de hoogte blijven van het nieuws. Traditionele kranten verliezen terrein, al blijven regionale titels opvallend stabiel. Volgens de onderzoekers komt dat doordat lokale berichtgeving moeilijk elders te vinden is. Ze pleiten ervoor om journalistiek in de regio structureel te ondersteunen, omdat anders een belangrijke bron van informatie over het openbaar bestuur verdwijnt.',
    'De verbouwing van het gebouw loopt volgens planning. De eerste verdieping is opgeleverd en wordt sinds maart gebruikt door de afdeling financiën. Op de tweede verdieping zijn de werkzaamheden vertraagd doordat er asbest werd aangetroffen in een oude leidingschacht. Een gespecialiseerd bedrijf heeft de sanering uitgevoerd; de aannemer verwacht de achterstand in het najaar in te lopen zonder extra kosten voor de huurders.',
    'In het klantonderzoek scoort de telefonische bereikbaarheid het laagst. Wachttijden van meer dan tien minuten zijn eerder regel dan uitzondering op maandagochtend. Het voorstel is om de openingstijden te verruimen en klanten vaker te wijzen op de chatfunctie, die in de praktijk sneller antwoord geeft. Daarnaast wordt onderzocht of terugbellen op een zelfgekozen tijdstip haalbaar is met de huidige bezetting.',
  ],
  en: [
    'The past year was marked by steady growth and a long overdue reorganisation. After the merger of the two regional offices, the customer contact and planning teams were brought together under a single manager. The first months were difficult, but the average handling time of requests has since dropped by almost a third, and staff report that decisions are made faster and with fewer handovers than before.',
    'The council presented its new vision for the town centre in the spring. It aims for less car traffic, more green space and a better spread of restaurants and bars across the different districts. Shop owners are divided: some see an opportunity for a more attractive high street, while others fear that visitors from the surrounding villages will stay away if parking becomes more expensive and harder to find.',
    'During the meeting the team discussed the workload at length. Several colleagues said that combining project work with day-to-day support is no longer sustainable. It was agreed to record for the next six weeks how much time goes into which tasks, so that management can decide on additional capacity based on facts rather than impressions. Emily Carter will coordinate the exercise and report back in July.',
    'Research shows that young people increasingly follow the news through social media. Traditional newspapers are losing ground, although regional titles remain remarkably stable. According to the researchers, this is because local reporting is hard to find anywhere else. They argue for structural support of regional journalism, since otherwise an important source of information about local government would disappear.',
    'The renovation of the building is on schedule. The first floor has been handed over and has been used by the finance department since March. Work on the second floor was delayed when asbestos was found in an old service shaft. A specialist firm carried out the removal, and the contractor expects to make up the delay in the autumn without additional costs for the tenants.',
    'In the customer survey, telephone availability scores lowest. Waiting times of more than ten minutes are the rule rather than the exception on Monday mornings. The proposal is to extend opening hours and to point customers more often to the chat function, which in practice answers faster. The team will also look into whether call-backs at a time chosen by the customer are feasible with current staffing.',
  ],
  fr: [
    'L’année écoulée a été marquée par une croissance régulière et une réorganisation attendue depuis longtemps. Après la fusion des deux agences régionales, les équipes chargées de la relation client et de la planification ont été réunies sous une direction unique. Les premiers mois ont été difficiles, mais le délai moyen de traitement des demandes a depuis baissé de près d’un tiers.',
    'La municipalité a présenté au printemps sa nouvelle vision du centre-ville. Elle mise sur moins de circulation automobile, davantage d’espaces verts et une meilleure répartition des cafés et restaurants. Les commerçants sont partagés : certains y voient l’occasion d’un centre plus agréable, d’autres craignent que les habitants des villages voisins ne viennent plus si le stationnement devient plus cher.',
    'Au cours de la réunion, l’équipe a longuement évoqué la charge de travail. Plusieurs collègues ont indiqué que la combinaison du travail en mode projet et du support quotidien n’était plus tenable. Il a été convenu de relever pendant six semaines le temps consacré à chaque tâche, afin que la direction puisse décider de renforts sur la base de faits. Julie Moreau coordonnera ce relevé.',
    'Les études montrent que les jeunes s’informent de plus en plus par les réseaux sociaux. La presse écrite traditionnelle perd du terrain, même si les titres régionaux restent étonnamment stables. Selon les chercheurs, l’information locale est difficile à trouver ailleurs. Ils plaident pour un soutien durable au journalisme de proximité, faute de quoi une source essentielle sur la vie publique locale disparaîtrait.',
    'La rénovation du bâtiment se déroule comme prévu. Le premier étage a été livré et accueille depuis mars le service financier. Au deuxième étage, les travaux ont pris du retard après la découverte d’amiante dans une ancienne gaine technique. Une entreprise spécialisée a procédé au désamiantage, et l’entrepreneur pense rattraper le retard à l’automne sans surcoût pour les locataires.',
    'Dans l’enquête de satisfaction, l’accessibilité téléphonique obtient la note la plus basse. Le lundi matin, une attente de plus de dix minutes est la règle plutôt que l’exception. Il est proposé d’élargir les horaires et d’orienter davantage les clients vers le chat, qui répond en pratique plus vite. On étudiera aussi la possibilité de rappeler les clients à l’heure de leur choix.',
  ],
  de: [
    'Das vergangene Jahr stand im Zeichen von Wachstum und einer lange überfälligen Neuorganisation. Nach der Zusammenlegung der beiden Regionalbüros wurden die Teams für Kundenkontakt und Planung unter einer gemeinsamen Leitung gebündelt. Die ersten Monate waren schwierig, doch die durchschnittliche Bearbeitungszeit von Anfragen ist seitdem um fast ein Drittel gesunken.',
    'Die Stadt hat im Frühjahr ihr neues Konzept für die Innenstadt vorgestellt. Es setzt auf weniger Autoverkehr, mehr Grünflächen und eine bessere Verteilung der Gastronomie. Die Händler sind geteilter Meinung: Manche sehen die Chance auf eine attraktivere Einkaufsstraße, andere befürchten, dass Besucher aus dem Umland ausbleiben, wenn das Parken teurer und schwieriger wird.',
    'In der Besprechung wurde ausführlich über die Arbeitsbelastung im Team gesprochen. Mehrere Kolleginnen und Kollegen berichteten, dass die Kombination aus Projektarbeit und täglichem Support nicht länger tragbar sei. Vereinbart wurde, sechs Wochen lang zu erfassen, wie viel Zeit in welche Aufgaben fließt, damit die Leitung auf Grundlage von Fakten über zusätzliche Kapazitäten entscheiden kann. Anna Becker koordiniert die Erhebung.',
    'Studien zeigen, dass sich junge Menschen zunehmend über soziale Medien informieren. Klassische Zeitungen verlieren an Boden, auch wenn regionale Titel erstaunlich stabil bleiben. Nach Ansicht der Forschenden liegt das daran, dass lokale Berichterstattung kaum anderswo zu finden ist. Sie plädieren für eine dauerhafte Förderung des Lokaljournalismus, weil sonst eine wichtige Informationsquelle über die Kommunalpolitik wegfällt.',
    'Der Umbau des Gebäudes verläuft nach Plan. Das erste Obergeschoss wurde übergeben und wird seit März von der Finanzabteilung genutzt. Im zweiten Obergeschoss haben sich die Arbeiten verzögert, weil in einem alten Leitungsschacht Asbest gefunden wurde. Eine Fachfirma hat die Sanierung übernommen, und der Bauunternehmer rechnet damit, den Rückstand im Herbst ohne Mehrkosten für die Mieter aufzuholen.',
    'In der Kundenbefragung schneidet die telefonische Erreichbarkeit am schlechtesten ab. Wartezeiten von mehr als zehn Minuten sind am Montagvormittag eher die Regel als die Ausnahme. Vorgeschlagen wird, die Servicezeiten auszuweiten und Kunden häufiger auf den Chat hinzuweisen, der in der Praxis schneller antwortet. Außerdem wird geprüft, ob ein Rückruf zu einer selbst gewählten Uhrzeit mit dem vorhandenen Personal machbar ist.',
  ],
};

const SECTION_TITLES: Record<Language, string[]> = {
  nl: ['Inleiding', 'Organisatie', 'Resultaten', 'Vooruitblik'],
  en: ['Introduction', 'Organisation', 'Results', 'Outlook'],
  fr: ['Introduction', 'Organisation', 'Résultats', 'Perspectives'],
  de: ['Einleitung', 'Organisation', 'Ergebnisse', 'Ausblick'],
};

/** A ~`bytes`-byte prose document (report, minutes) in `lang`: numbered sections of paragraphs. */
export function longDocument(lang: Language, bytes = 50_000): string {
  const paragraphs = PROSE[lang];
  const titles = SECTION_TITLES[lang];
  let out = '';
  let section = 0;
  for (let i = 0; Buffer.byteLength(out, 'utf8') < bytes; i++) {
    if (i % 4 === 0) {
      section++;
      out += `${section}. ${titles[(section - 1) % titles.length]}\n\n`;
    }
    // Rotate the order so that consecutive sections do not repeat verbatim.
    out += paragraphs[(i * 7 + section) % paragraphs.length] + '\n\n';
  }
  return out;
}

/** Deterministic pseudo-random numbers for the generated texts. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/**
 * Digit-heavy text, ~`bytes` bytes each: an application log, a CSV export of orders, and an
 * invoice/statement table — timestamps, amounts, order numbers, versions, IP addresses, with the
 * occasional real phone number or IBAN.
 */
export function digitHeavyTexts(bytes = 20_000): string[] {
  const rnd = lcg(42);
  const int = (n: number) => Math.floor(rnd() * n);
  const pad = (n: number, w: number) => String(n).padStart(w, '0');

  let log = '';
  const levels = ['INFO', 'INFO', 'INFO', 'WARN', 'DEBUG', 'ERROR'];
  const paths = ['/api/v1/orders', '/api/v1/customers', '/health', '/api/v2/invoices', '/static/app.js'];
  for (let i = 0; log.length < bytes; i++) {
    const ts = `2024-03-${pad(1 + int(28), 2)}T${pad(int(24), 2)}:${pad(int(60), 2)}:${pad(int(60), 2)}.${pad(int(1000), 3)}Z`;
    const ip = `10.${int(256)}.${int(256)}.${1 + int(254)}`;
    log += `${ts} ${levels[int(levels.length)]} req=${(int(1e9) + 1e9).toString(16)} ${ip} GET ${paths[int(paths.length)]}/${100000 + int(900000)} ${[200, 200, 200, 404, 500][int(5)]} ${1 + int(900)}ms v2.${int(20)}.${int(10)}\n`;
  }

  let csv = 'order_id;date;time;items;amount_eur;vat;status;warehouse\n';
  for (let i = 0; csv.length < bytes; i++) {
    csv += `${40000000 + int(9999999)};${pad(1 + int(28), 2)}-${pad(1 + int(12), 2)}-2024;${pad(int(24), 2)}:${pad(int(60), 2)};${1 + int(9)};${int(900)},${pad(int(100), 2)};21%;${['shipped', 'open', 'returned'][int(3)]};WH-${pad(int(40), 2)}\n`;
    if (i % 50 === 17) csv += '# escalated: customer asks for a call back on 06 12345678\n';
  }

  let statement = 'Rekeningoverzicht / Kontoauszug / Relevé\n\n';
  const memos = ['Albert Heijn 1234', 'NS reizen', 'Huur', 'Zorgverzekering', 'Salaris', 'Energie', 'Terugbetaling'];
  for (let i = 0; statement.length < bytes; i++) {
    statement += `${pad(1 + int(28), 2)}.${pad(1 + int(12), 2)}.2024  ${memos[int(memos.length)]!.padEnd(20)} ${int(2) ? '-' : '+'}${int(2000)},${pad(int(100), 2)}  saldo ${int(9000)},${pad(int(100), 2)}  ref ${int(1e8)}\n`;
    if (i % 60 === 31) statement += 'Tegenrekening NL91 ABNA 0417 1643 00, kenmerk 2024/000123\n';
  }
  return [log, csv, statement];
}

/**
 * Realistic ~2,000-character chat prompts: a user pastes a customer e-mail and asks for a reply.
 * Each carries a name, an e-mail address, a phone number and an order number, like the prompts
 * the gateway sees.
 */
export const PROMPTS_2000: BenchText[] = [
  {
    lang: 'nl',
    text: `Kun je me helpen een antwoord te schrijven op de onderstaande klacht? Houd het vriendelijk maar duidelijk, en bied geen compensatie aan voordat we het dossier hebben bekeken.

---
Geachte heer, mevrouw,

Op 3 maart heb ik bij u een wasmachine besteld (bestelnummer 88421937). Volgens de bevestiging zou deze binnen vijf werkdagen worden bezorgd, maar inmiddels zijn we drie weken verder en heb ik nog niets ontvangen. Ik heb twee keer gebeld met de klantenservice en beide keren werd me beloofd dat ik binnen twee dagen zou worden teruggebeld. Dat is niet gebeurd.

Eerlijk gezegd had ik meer verwacht van een winkel die zo adverteert met service. Toen ik de machine bestelde, stond er op de website dat hij op voorraad was en dat ik kon kiezen voor bezorging met installatie en het meenemen van mijn oude machine. Die optie heb ik ook betaald. Inmiddels staat de oude machine, die lekt, nog steeds in de badkamer en durf ik hem niet meer te gebruiken. Ook de chat op uw website gaf geen duidelijk antwoord: daar kreeg ik alleen een standaardtekst over drukte in het magazijn en een link naar de veelgestelde vragen, waar mijn situatie niet tussen staat.

Ik heb twee kleine kinderen en doe nu al weken de was bij mijn moeder aan de andere kant van de stad. Dat kost me niet alleen tijd maar ook geld. Ik verwacht dat u de machine uiterlijk aanstaande vrijdag levert en installeert, of anders het volledige bedrag terugbetaalt.

U kunt mij het beste bereiken op 06 41 27 83 90 of via e-mail: s.vandijk@hotmail.nl. Overdag werk ik, dus bel bij voorkeur na half zes.

Met vriendelijke groet,
Sanne van Dijk
---

Achtergrond: het magazijn had een voorraadprobleem met dit model, dat is sinds maandag opgelost. De bezorging kan op zijn vroegst donderdag plaatsvinden. Noem in het antwoord ook dat we de gemiste terugbelafspraken betreuren en dat een teamleider haar persoonlijk belt. Sluit af met de naam van onze afdeling, niet met mijn eigen naam. Maximaal 200 woorden graag.`,
  },
  {
    lang: 'en',
    text: `Could you help me write a reply to the customer email below? Keep the tone warm but professional, and do not promise a refund before finance has looked at the case.

---
Hello,

On 3 March I ordered a washing machine from your web shop (order number 4471902). The confirmation said it would be delivered within five working days, but three weeks later I still have nothing. I have called your customer service twice, and both times I was promised a call back within two days. Nobody called.

To be honest, I expected more from a shop that advertises its service so prominently. When I placed the order, the website said the machine was in stock and that I could choose delivery with installation and removal of my old machine. I paid for that option as well. Meanwhile the old machine, which leaks, is still standing in the bathroom and I no longer dare to use it. The chat on your website did not give a clear answer either: all I got was a standard message about a busy warehouse and a link to the frequently asked questions, none of which cover my situation.

I have two small children and I have been doing our laundry at my mother's place on the other side of town for weeks now. That costs me time as well as money. I expect you to deliver and install the machine by this Friday at the latest, or otherwise refund the full amount.

The best way to reach me is on 07823 456719 or by email at emma.collins@outlook.com. I work during the day, so please call after half past five.

Kind regards,
Emma Collins
---

Background: the warehouse had a stock problem with this model, which was solved on Monday. The earliest possible delivery is Thursday. Please mention that we regret the missed call-backs and that a team leader will call her personally. Sign off with the name of our department, not with my own name. Two hundred words at most, please, and keep the paragraphs short so that it reads well on a phone.`,
  },
  {
    lang: 'fr',
    text: `Peux-tu m'aider à rédiger une réponse à la réclamation ci-dessous ? Garde un ton aimable mais clair, et ne propose aucun dédommagement avant que le service comptable ait examiné le dossier.

---
Madame, Monsieur,

Le 3 mars, j'ai commandé un lave-linge sur votre site (commande n° 20240303-881). La confirmation annonçait une livraison sous cinq jours ouvrés, mais trois semaines plus tard je n'ai toujours rien reçu. J'ai appelé deux fois votre service client et on m'a promis à chaque fois un rappel sous quarante-huit heures. Personne ne m'a rappelée.

Honnêtement, j'attendais mieux d'une enseigne qui met autant en avant la qualité de son service. Au moment de la commande, le site indiquait que l'appareil était en stock et que je pouvais choisir la livraison avec installation et reprise de l'ancien lave-linge. J'ai payé cette option. Entre-temps, l'ancienne machine, qui fuit, est toujours dans la salle de bains et je n'ose plus m'en servir. Le chat de votre site ne m'a pas donné de réponse claire non plus : seulement un message type sur l'affluence à l'entrepôt et un lien vers la foire aux questions, qui ne traite pas de ma situation.

J'ai deux jeunes enfants et je fais la lessive chez ma mère, à l'autre bout de la ville, depuis des semaines. Cela me coûte du temps et de l'argent. J'attends que vous livriez et installiez l'appareil au plus tard vendredi prochain, ou que vous me remboursiez intégralement.

Vous pouvez me joindre au 06 72 15 48 39 ou par courriel : claire.lefebvre@orange.fr. Je travaille en journée, merci d'appeler de préférence après dix-sept heures trente.

Cordialement,
Claire Lefebvre
---

Contexte : l'entrepôt a eu un problème de stock sur ce modèle, réglé depuis lundi. La livraison peut avoir lieu jeudi au plus tôt. Indique aussi que nous regrettons les rappels manqués et qu'un responsable d'équipe l'appellera personnellement. Termine par le nom de notre service, pas par le mien. Deux cents mots maximum, s'il te plaît.`,
  },
  {
    lang: 'de',
    text: `Kannst du mir helfen, eine Antwort auf die folgende Beschwerde zu schreiben? Bitte freundlich, aber klar im Ton, und biete keine Entschädigung an, bevor die Buchhaltung den Vorgang geprüft hat.

---
Sehr geehrte Damen und Herren,

am 3. März habe ich in Ihrem Onlineshop eine Waschmaschine bestellt (Bestellnummer 2024-0303-5521). Laut Bestätigung sollte sie innerhalb von fünf Werktagen geliefert werden, doch drei Wochen später habe ich noch immer nichts erhalten. Ich habe zweimal beim Kundenservice angerufen, und beide Male wurde mir ein Rückruf innerhalb von zwei Tagen versprochen. Es hat sich niemand gemeldet.

Ehrlich gesagt hatte ich von einem Geschäft, das so sehr mit seinem Service wirbt, mehr erwartet. Bei der Bestellung stand auf der Website, dass die Maschine vorrätig sei und dass ich die Lieferung mit Anschluss und Mitnahme meiner alten Maschine wählen könne. Diese Option habe ich auch bezahlt. Die alte Maschine, die leckt, steht inzwischen immer noch im Bad, und ich traue mich nicht mehr, sie zu benutzen. Auch der Chat auf Ihrer Website hat mir keine klare Antwort gegeben: Ich bekam nur einen Standardtext über viel Betrieb im Lager und einen Link zu den häufigen Fragen, in denen meine Situation nicht vorkommt.

Ich habe zwei kleine Kinder und wasche seit Wochen bei meiner Mutter am anderen Ende der Stadt. Das kostet mich nicht nur Zeit, sondern auch Geld. Ich erwarte, dass Sie die Maschine spätestens bis kommenden Freitag liefern und anschließen oder mir den vollen Betrag erstatten.

Am besten erreichen Sie mich unter 0151 23456789 oder per E-Mail an j.hoffmann@web.de. Tagsüber arbeite ich, rufen Sie also bitte erst nach halb sechs an.

Mit freundlichen Grüßen
Julia Hoffmann
---

Hintergrund: Das Lager hatte ein Lieferproblem bei diesem Modell, das seit Montag behoben ist. Die Lieferung ist frühestens am Donnerstag möglich. Erwähne bitte, dass wir die versäumten Rückrufe bedauern und dass eine Teamleiterin sie persönlich anrufen wird. Unterschreibe mit dem Namen unserer Abteilung, nicht mit meinem. Höchstens zweihundert Wörter, bitte.`,
  },
];
