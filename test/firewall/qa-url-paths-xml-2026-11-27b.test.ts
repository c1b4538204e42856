import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';
import { expectMasksAndRestores, expectUnchanged, maskAuto } from './qaSamples.js';

// QA 2026-11-27 (second round), chat messages that reached the provider with a person in clear: a
// name in a URL's path (a LinkedIn profile, an intranet's staff page, a markdown link beside the
// masked name), and XML records whose <FirstName> and <LastName> went out while <Email> and <Phone>
// were masked. Beside them the ordinary URLs and markup of the same shape that must stay as written.
describe('firewall QA: URL paths and XML of 2026-11-27 (b)', () => {
  describe('names in URL paths', () => {
    it("masks a profile's slug on a profile site, keeping the URL a URL", () => {
      expectMasksAndRestores('Profiel: https://www.linkedin.com/in/sanne-vermeulen-4a21b3/', 'Profiel: https://www.linkedin.com/in/%5BPERSON_1%5D/');
      expectMasksAndRestores('zie nl.linkedin.com/in/aoifemacgiolla', 'zie nl.linkedin.com/in/%5BPERSON_1%5D');
      expectMasksAndRestores('https://www.xing.com/profile/Dorothea_Gruber2', 'https://www.xing.com/profile/%5BPERSON_1%5D');
      expectMasksAndRestores('Insta: https://instagram.com/sanne.v_92 en https://x.com/sannev/status/1790', 'Insta: https://instagram.com/%5BPERSON_1%5D en https://x.com/%5BPERSON_2%5D/status/1790');
      expectMasksAndRestores('https://www.facebook.com/sanne.vermeulen.3', 'https://www.facebook.com/%5BPERSON_1%5D');
      expectMasksAndRestores('https://twitter.com/jbrouwer?lang=nl', 'https://twitter.com/%5BPERSON_1%5D?lang=nl');
      // The "@" stays: the placeholder is the handle's.
      expectMasksAndRestores('https://www.tiktok.com/@sanne.v', 'https://www.tiktok.com/@%5BPERSON_1%5D');
    });

    it('masks the slug of a CV whose name line was masked', () => {
      const cv = 'Aoife MacGiolla\nDublin, Ireland\nlinkedin.com/in/aoifemacgiolla\n\nExperience: 6 years backend development';
      expect(maskAuto(cv)).to.equal('[PERSON_1]\nDublin, Ireland\nlinkedin.com/in/%5BPERSON_2%5D\n\nExperience: 6 years backend development');
      expectMasksAndRestores(cv, maskAuto(cv));
    });

    it('masks a path segment that spells a known first name and surname', () => {
      expectMasksAndRestores('Zie https://intranet.acme.nl/medewerkers/jeroen-brouwer voor zijn rooster.', 'Zie https://intranet.acme.nl/medewerkers/%5BPERSON_1%5D voor zijn rooster.');
      expectMasksAndRestores('Repo: https://github.com/jeroen-brouwer/dotfiles', 'Repo: https://github.com/%5BPERSON_1%5D/dotfiles');
      expectMasksAndRestores('https://team.example.org/people/jan-van-der-berg.', 'https://team.example.org/people/%5BPERSON_1%5D.');
    });

    it('masks a slug that spells a name masked elsewhere in the text', () => {
      expectMasksAndRestores(
        'Contact Anna Kowalski via [profile](https://example.com/u/anna.kowalski).',
        'Contact [PERSON_1] via [profile](https://example.com/u/%5BPERSON_2%5D).',
      );
      expectMasksAndRestores('Mijn naam is Xiomara Okafor, zie example.com/team/xiomara-okafor', 'Mijn naam is [PERSON_1], zie example.com/team/%5BPERSON_2%5D');
    });

    it('restores each slug as written, however often the person recurs', () => {
      const text = 'Anna Kowalski: https://example.com/u/anna.kowalski en https://example.com/u/Anna-Kowalski';
      const fw = createFirewall({ language: 'auto' });
      const masked = fw.mask(text);
      expect(masked).to.not.include('owalski');
      expect(fw.restore(masked)).to.equal(text);
    });

    it('leaves ordinary paths, site pages and repositories as written', () => {
      expectUnchanged([
        'https://example.com/docs/getting-started',
        'https://shop.nl/products/jan-linders-kaas',
        'https://example.com/blog/2024/03/release-notes',
        'https://github.com/nodejs/node/issues/123 en github.com/facebook/react',
        'https://x.com/home, https://www.facebook.com/groups/123456, https://www.instagram.com/explore/',
        // A handle in capitals is an acronym or an organisation's as often as a person's.
        'https://x.com/NASA',
        'https://www.linkedin.com/company/acme-bv/ en https://www.linkedin.com/jobs/view/123',
        'Stap 5/6: en/of 3/4 van de km/h; zie src/firewall/detect.ts',
        'https://example.com/mark-down/grace-period',
      ]);
    });
  });

  describe('XML elements read as keys and values', () => {
    it('masks first name and surname in a record beside its e-mail and phone', () => {
      expectMasksAndRestores(
        '<Customer><FirstName>Dorothea</FirstName><LastName>Gruber</LastName><Email>d.gruber@example.at</Email><Phone>+43 660 1234567</Phone></Customer>',
        '<Customer><FirstName>[PERSON_1]</FirstName><LastName>[PERSON_2]</LastName><Email>[EMAIL_1]</Email><Phone>[PHONE_1]</Phone></Customer>',
      );
    });

    it('reads Dutch and German keys, and SOAP tags with a namespace', () => {
      expectMasksAndRestores(
        '<klant>\n  <naam>Jan de Vries</naam>\n  <geboortedatum> 1985-03-12 </geboortedatum>\n</klant>',
        '<klant>\n  <naam>[PERSON_1]</naam>\n  <geboortedatum> [DATE_OF_BIRTH_1] </geboortedatum>\n</klant>',
      );
      expectMasksAndRestores(
        '<soap:Body><ns:Kunde><ns:Vorname>Dorothea</ns:Vorname><ns:LastName>Gruber</ns:LastName><ns:Geburtsdatum>12.03.1985</ns:Geburtsdatum>' +
          '<ns:Strasse>Hauptstraße 5</ns:Strasse><ns:IBAN>DE89 3704 0044 0532 0130 00</ns:IBAN></ns:Kunde></soap:Body>',
        '<soap:Body><ns:Kunde><ns:Vorname>[PERSON_1]</ns:Vorname><ns:LastName>[PERSON_2]</ns:LastName><ns:Geburtsdatum>[DATE_OF_BIRTH_1]</ns:Geburtsdatum>' +
          '<ns:Strasse>[ADDRESS_1]</ns:Strasse><ns:IBAN>[IBAN_1]</ns:IBAN></ns:Kunde></soap:Body>',
      );
    });

    it('masks the values of attributes named as keys', () => {
      expectMasksAndRestores('<Person firstName="Dorothea" lastName="Gruber" ns:birthDate="1985-03-12"/>', '<Person firstName="[PERSON_1]" lastName="[PERSON_2]" ns:birthDate="[DATE_OF_BIRTH_1]"/>');
    });

    it('masks a value written with an entity, restoring the entity', () => {
      expectMasksAndRestores('<LastName>M&uuml;ller</LastName><FirstName>Dorothea</FirstName>', '<LastName>[PERSON_1]</LastName><FirstName>[PERSON_2]</FirstName>');
    });

    it('leaves things, organisations, nested elements and code as written', () => {
      expectUnchanged([
        // A record about a thing: its name is the product's (as in JSON).
        '<Product><Name>Jan Linders Kaas</Name><Price>4.99</Price><SKU>JLK-1</SKU></Product>',
        '<Supplier><Name>Acme B.V.</Name></Supplier>',
        // Only simple text content is a value.
        '<Name><Display>Release notes</Display></Name>',
        '<FirstName/><LastName></LastName>',
        'List<String> names = new ArrayList<>(); if (a < b && c > d) {}',
        '<config><version>2.4.1</version><enabled>true</enabled></config>',
        '<p>Welkom</p><div>Hallo wereld</div><span>Nieuw</span>',
      ]);
    });
  });
  // Their worst cases are in adversarial.ts, run by worst-case.test.ts in a process of its own.
});
