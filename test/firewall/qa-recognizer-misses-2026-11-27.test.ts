import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// QA 2026-11-27, user messages sent to a running instance that reached the provider in clear (or
// under the wrong type): a BSN written with hyphens or without its leading 0. The samples as QA sent
// them, and beside them the ordinary text of the same shape that must stay as written.
describe('firewall QA: recognizer misses of 2026-11-27', () => {
  const mask = (text: string) => createFirewall({ language: 'auto' }).mask(text);
  const unchanged = (texts: string[]) => {
    for (const text of texts) expect(mask(text), text).to.equal(text);
  };
  const masksAndRestores = (text: string, masked: string) => {
    const fw = createFirewall({ language: 'auto' });
    expect(fw.mask(text), text).to.equal(masked);
    expect(fw.restore(masked), masked).to.equal(text);
  };

  describe('a BSN written 3-3-3 with hyphens, or as eight digits after its label', () => {
    it('masks a hyphenated BSN beside its BSN word', () => {
      masksAndRestores('Mijn bsn: 123-456-782, graag verwerken.', 'Mijn bsn: [BSN_1], graag verwerken.');
      masksAndRestores('My BSN is 123-456-782.', 'My BSN is [BSN_1].');
      expect(mask('Burgerservicenummer 123-456-782')).to.equal('Burgerservicenummer [BSN_1]');
      // The forms already masked keep being masked, and one number is one placeholder in any form.
      expect(mask('BSN 123-456-782, ook wel 123456782 of 1234.56.782')).to.equal('BSN [BSN_1], ook wel [BSN_1] of [BSN_1]');
    });

    it('masks an eight-digit BSN (a leading 0 dropped) right after its label', () => {
      masksAndRestores('bsn van klant: 12345672', 'bsn van klant: [BSN_1]');
      masksAndRestores('BSN: 12345672', 'BSN: [BSN_1]');
      expect(mask('bsn van klant: 12345672, ook als 012345672')).to.equal('bsn van klant: [BSN_1], ook als [BSN_1]');
    });

    it('leaves hyphenated and eight-digit numbers without the label as they are', () => {
      unchanged([
        // 123-456-782 and 12345672 pass the 11-proof: only their label makes them BSNs.
        'SKU 123-456-782, 3 units',
        'Artikelnummer 123-456-782',
        'Ticket 123-456-782 is gesloten.',
        'Tekening 123-456-782 rev. B',
        'klant 12345672',
        'Ordernummer 12345672',
        'We shipped 12345672 units.',
      ]);
      // The label names the first number; the second is another.
      expect(mask('BSN 123456782 en 12345672')).to.equal('BSN [BSN_1] en 12345672');
    });
  });
});
