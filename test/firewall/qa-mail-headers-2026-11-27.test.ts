import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// QA 2026-11-27: names in mail and chat headers as Outlook/Exchange, Teams and French mail paste
// them, surname first, with the surname left in clear beside the placeholder ("Hoekstra,
// [PERSON_1]"); the samples as QA sent them, with the look-alikes that must stay beside them.
describe('firewall QA: surname-first names in mail and chat headers (2026-11-27)', () => {
  const masks = (text: string, expected: string) => {
    const fw = createFirewall({ language: 'auto' });
    const masked = fw.mask(text);
    expect(masked, text).to.equal(expected);
    expect(fw.restore(masked), masked).to.equal(text);
  };
  const unchanged = (texts: string[]) => {
    for (const text of texts) masks(text, text);
  };

  describe('Dutch initials with the calling name in brackets', () => {
    it('masks initials, calling name and surname as one person, the title left outside', () => {
      masks('Geachte dhr. K.J. (Kees) de Wit,', 'Geachte dhr. [PERSON_1],');
      masks('P. (Piet) van Leeuwen', '[PERSON_1]');
      masks('Met vriendelijke groet,\nJ.A.M. (HANS) VAN DER HEIJDEN', 'Met vriendelijke groet,\n[PERSON_1]');
    });

    it('needs initials before the bracket and a first name inside it', () => {
      unchanged(['Art. 5 (Anna) Jansen', 'zie bijlage B. (Schade) Formulier', 'Stap 2. (Optioneel) Installeren']);
    });
  });
});
