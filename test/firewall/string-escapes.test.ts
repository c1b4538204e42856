import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// A string literal's escapes, read as what they stand for (src/firewall/string-escapes.ts): tool
// results and pasted records in JSON, Python's json.dumps writing "\u00e9" (QA, 2026-11-27).
describe('firewall: text written with escapes', () => {
  it('masks a name written with \\u escapes whole, as its key and its words say, and restores it decoded', () => {
    const fw = createFirewall({ language: 'auto' });
    const masked = fw.mask('{"customer": "Jos\\u00e9 Garc\\u00eda", "note": "Rappeler Fran\\u00e7ois Dupont", "email": "jose@example.es"}');
    expect(masked).to.equal('{"customer": "[PERSON_1]", "note": "Rappeler [PERSON_2]", "email": "[EMAIL_1]"}');
    expect(JSON.parse(masked)).to.be.an('object');
    expect(fw.restore('[PERSON_1] and [PERSON_2]')).to.equal('José García and François Dupont');
    expect(fw.mask('Mijn naam is Ren\\u00e9e Dijkstra')).to.equal('Mijn naam is [PERSON_3]');
  });

  it('reads escaped line breaks as lines: no letter glued to a value, blocks of lines read as such, the JSON still valid', () => {
    const fw = createFirewall({ language: 'auto' });
    const record = '{"ticket":{"body":"Lieferadresse:\\nKatharina Wagner\\nLindenstra\\u00dfe 14\\n04109 Leipzig\\nDanke!\\nKatharina Wagner","reply":"Reply to:\\nanna.smit@example.nl"}}';
    const masked = fw.mask(record);
    expect(masked).to.equal('{"ticket":{"body":"Lieferadresse:\\n[PERSON_1]\\n[ADDRESS_1]\\nDanke!\\n[PERSON_1]","reply":"Reply to:\\n[EMAIL_1]"}}');
    expect(JSON.parse(masked).ticket.reply).to.equal('Reply to:\n[EMAIL_1]');
    // Restored in prose with its line break, in a tool call's arguments escaped again.
    expect(fw.restore('[ADDRESS_1] / [EMAIL_1]')).to.equal('Lindenstraße 14\n04109 Leipzig / anna.smit@example.nl');
    expect(JSON.parse(fw.restoreToolArguments('{"to":"[EMAIL_1]","address":"[ADDRESS_1]"}'))).to.deep.equal({ to: 'anna.smit@example.nl', address: 'Lindenstraße 14\n04109 Leipzig' });
  });

  it('reads rows of a table escaped in one string, and text escaped twice', () => {
    const fw = createFirewall({ language: 'auto' });
    const tsv = '{"export":"naam\\ttelefoon\\nFatima El Amrani\\t06 12345678\\nJoost Visser\\t06 87654321"}';
    const masked = fw.mask(tsv);
    expect(masked).not.to.match(/Fatima|Amrani|Joost|Visser|12345678|87654321/);
    expect(JSON.parse(masked).export.split('\n')[0]).to.equal('naam\ttelefoon');
    expect(fw.mask('"{\\"name\\": \\"Ren\\\\u00e9 M\\\\u00fcller\\"}"')).not.to.match(/M\\\\u00fcller/);
  });

  it('leaves escapes that name no one as written', () => {
    const fw = createFirewall({ language: 'auto' });
    for (const text of ['printf("hello\\n");', 'C:\\Users\\thomas\\x.txt', '{"unit":"\\u00b0C","price":"\\u20ac 12"}', 'split on "\\t" and "\\/"', 'a \\" quote']) {
      expect(fw.mask(text), text).to.equal(text);
    }
  });
});
