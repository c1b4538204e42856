import { expect } from 'chai';
import { languageMatters } from '../../src/firewall/detect.js';
import { detectLanguage, guessLanguage } from '../../src/firewall/language.js';
import { voteLanguage } from '../../src/firewall/language-words.js';
import { createFirewall } from '../../src/firewall/firewall.js';
import type { Language } from '../../src/firewall/types.js';

const SHORT: Array<[Language, string]> = [
  ['nl', 'Kun je me morgen even bellen?'],
  ['nl', 'Ik wil mijn adres wijzigen.'],
  ['nl', 'Wanneer wordt mijn pakket bezorgd?'],
  ['nl', 'Dank je wel voor je hulp!'],
  ['nl', 'Mijn rekening is geblokkeerd.'],
  ['nl', 'Hoe laat gaat de winkel open?'],
  ['nl', 'Ik heb een vraag over de factuur.'],
  ['nl', 'Het werkt nog steeds niet.'],
  ['nl', 'Graag een afspraak volgende week.'],
  ['nl', 'Waar kan ik mijn wachtwoord veranderen?'],
  ['en', 'Can you call me tomorrow?'],
  ['en', 'I want to change my address.'],
  ['en', 'When will my parcel be delivered?'],
  ['en', 'Thank you so much for your help!'],
  ['en', 'My account has been blocked.'],
  ['en', 'What time does the shop open?'],
  ['en', 'I have a question about the invoice.'],
  ['en', 'It still does not work.'],
  ['en', 'Please book an appointment next week.'],
  ['en', 'Where can I change my password?'],
  ['fr', 'Pouvez-vous me rappeler demain ?'],
  ['fr', 'Je voudrais changer mon adresse.'],
  ['fr', 'Quand mon colis sera-t-il livré ?'],
  ['fr', 'Merci beaucoup pour votre aide !'],
  ['fr', 'Mon compte a été bloqué.'],
  ['fr', 'À quelle heure ouvre le magasin ?'],
  ['fr', "J'ai une question sur la facture."],
  ['fr', 'Ça ne marche toujours pas.'],
  ['fr', 'Un rendez-vous la semaine prochaine, svp.'],
  ['fr', 'Où puis-je changer mon mot de passe ?'],
  ['de', 'Können Sie mich morgen anrufen?'],
  ['de', 'Ich möchte meine Adresse ändern.'],
  ['de', 'Wann wird mein Paket geliefert?'],
  ['de', 'Vielen Dank für Ihre Hilfe!'],
  ['de', 'Mein Konto wurde gesperrt.'],
  ['de', 'Wann öffnet der Laden?'],
  ['de', 'Ich habe eine Frage zur Rechnung.'],
  ['de', 'Es funktioniert immer noch nicht.'],
  ['de', 'Bitte einen Termin nächste Woche.'],
  ['de', 'Wo kann ich mein Passwort ändern?'],
];

describe('firewall language detection', () => {
  it('gets short chat sentences right in all four languages', () => {
    const wrong = SHORT.filter(([lang, text]) => detectLanguage(text, lang === 'en' ? 'nl' : 'en') !== lang);
    expect(wrong, JSON.stringify(wrong)).to.have.length(0);
  });

  it('falls back for texts too short or without letters', () => {
    expect(detectLanguage('ok', 'de')).to.equal('de');
    expect(detectLanguage('06 12345678', 'fr')).to.equal('fr');
    expect(detectLanguage('', 'nl')).to.equal('nl');
    expect(guessLanguage('👍', 'en')).to.deep.equal({ language: 'en', accuracy: 0, detected: false });
  });

  it('detects the language of each message in a mixed conversation', () => {
    const conversation: Array<[Language, string]> = [
      ['nl', 'Hallo, ik heb een vraag over mijn laatste factuur.'],
      ['en', 'Sure, could you give me your customer email so I can look it up?'],
      ['nl', 'Natuurlijk, mijn naam is Maarten van Dam en ik woon in Utrecht.'],
      ['de', 'Entschuldigung, können wir bitte auf Deutsch weitermachen?'],
      ['fr', "Bonjour, je voudrais aussi changer l'adresse de livraison."],
      ['en', 'Thanks, I have updated the delivery address.'],
    ];
    const fw = createFirewall({ language: 'auto', fallbackLanguage: 'en' });
    expect(conversation.map(([, text]) => fw.languageOf(text))).to.deep.equal(conversation.map(([lang]) => lang));
  });

  it('masking runs language detection only where the language can change the result', () => {
    const fw = createFirewall({ language: 'auto' });
    fw.mask('Hallo, ik heb een vraag over mijn laatste factuur.'); // digit-free: skipped
    fw.mask('Bel me op 06 12345678, dank je wel.'); // phone region: detected (nl)
    fw.mask('Rufen Sie mich bitte unter 0151 23456789 an.'); // detected (de)
    fw.mask('Bonjour, M. Dupont vous rappellera demain.'); // French title "M.": detected (fr)
    expect(fw.stats().languages).to.deep.equal({ skipped: 1, nl: 1, de: 1, fr: 1 });
  });

  it('masks a name after "M." in a short French message whose language is too short to tell', () => {
    expect(createFirewall({ language: 'auto' }).mask('Rappeler M. Lefebvre svp')).to.equal('Rappeler M. [PERSON_1] svp');
    expect(createFirewall({ language: 'auto' }).mask('M. Dupont a appelé hier')).to.equal('M. [PERSON_1] a appelé hier');
  });

  it('uses the phone region of each message language', () => {
    // "06 12 34 56 78" is a French mobile; "0612345678" a Dutch one; each is found in its message.
    const fw = createFirewall({ language: 'auto' });
    expect(fw.mask('Appelez-moi au 06 12 34 56 78 demain matin, merci.')).to.equal('Appelez-moi au [PHONE_1] demain matin, merci.');
    expect(fw.mask('Bel me morgen op 0612345678, dank je wel.')).to.equal('Bel me morgen op [PHONE_2], dank je wel.');
  });

  it('a fixed language setting overrides detection', () => {
    const fw = createFirewall({ language: 'de' });
    expect(fw.languageOf('This is clearly an English sentence.')).to.equal('de');
  });
});

describe('firewall language detection: function-word vote and when it is needed', () => {
  it('decides clear texts from their function words, without tinyld', () => {
    const cases: Array<[Language, string]> = [
      ['nl', 'Kun je me helpen een antwoord te schrijven op de onderstaande klacht van de klant?'],
      ['en', 'Could you help me write a reply to the customer email below? Keep it short.'],
      ['fr', "Peux-tu m'aider à rédiger une réponse à la réclamation ci-dessous ? C'est urgent."],
      ['de', 'Kannst du mir helfen, eine Antwort auf die folgende Beschwerde zu schreiben?'],
    ];
    for (const [lang, text] of cases) {
      expect(voteLanguage(text)?.language, text).to.equal(lang);
      expect(guessLanguage(text, 'en').method, text).to.equal('words');
    }
  });

  it('abstains when the words do not point clearly to one language; tinyld decides then', () => {
    expect(voteLanguage('Factuurnummer 2024-0012345, vervaldatum 15-03-2024.')).to.equal(null);
    expect(voteLanguage('Cheers, Dave')).to.equal(null);
    const g = guessLanguage('Rekeningoverzicht Kontoauszug Relevé Energie Huur Zorgverzekering', 'en');
    expect(g.method).to.equal('ngrams');
  });

  it('does not read e-mail addresses, domains or URLs as words ("web.de" is no German)', () => {
    expect(voteLanguage('j.de.vries@web.de s.van.dam@die.de www.die.de/der/das')).to.equal(null);
    // Elisions and contractions count: French before the apostrophe, English after it.
    expect(voteLanguage("j'ai l'adresse d'un ami qu'il connaît")?.language).to.equal('fr');
    expect(voteLanguage("it's fine, I'm sure we'll manage, don't worry")?.language).to.equal('en');
  });

  it('the language matters only for national phone numbers and the French title "M."', () => {
    expect(languageMatters('Bel me op 06 12345678.')).to.equal(true);
    expect(languageMatters('Bonjour, M. Dupont vous rappellera.')).to.equal(true);
    expect(languageMatters('Bestelling 88421937 van 3 mei, totaal € 59,95.')).to.equal(false);
    expect(languageMatters('Call me on +31 6 12345678 tomorrow.')).to.equal(false); // international: any region reads it the same
    expect(languageMatters('Call me on +31 6 12345678 or 020 794 6120.')).to.equal(true);
    expect(languageMatters('Bel me: 12345678')).to.equal(true); // a bare run with a phone cue
    expect(languageMatters('Version 2.14.3 on 192.168.1.20 at 14:32:10')).to.equal(false);
    // A fraction's leading 0 is no trunk prefix: nothing for a phone number plan to read.
    expect(languageMatters('Seed 1764091234567, ratio 0.8472619384756.')).to.equal(false);
  });

  it('masking skips detection for digits that no region reads differently', () => {
    const fw = createFirewall({ language: 'auto' });
    fw.mask('Mijn bestelling 88421937 van 3 mei is nog niet binnen.');
    fw.mask('Please call +31 6 12345678 after five.');
    fw.mask('Bel me op 06 12345678, dank je wel.');
    expect(fw.stats().languages).to.deep.equal({ skipped: 2, nl: 1 });
  });
});
