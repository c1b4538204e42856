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
    // Restored in a reply's text with its line break escaped as written (a reply that repeats the
    // JSON stays valid JSON), in a tool call's arguments as it reads, escaped again for JSON.
    expect(fw.restore('[ADDRESS_1] / [EMAIL_1]')).to.equal('Lindenstraße 14\\n04109 Leipzig / anna.smit@example.nl');
    expect(JSON.parse(fw.restore(masked))).to.deep.equal(JSON.parse(record));
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

  it('reads the escapes of ASCII punctuation (.NET, Go, Rails) and of a quote, and gives the values back whole', () => {
    const fw = createFirewall({ language: 'auto' });
    const masked = fw.mask('{"contact":"Jan de Vries \\u003cjan.devries@example.nl\\u003e","note":"Call \\u002B44 7911 123456 or mail \\u0022Anna Smit\\u0022"}');
    expect(masked).to.equal('{"contact":"[PERSON_1] \\u003c[EMAIL_1]\\u003e","note":"Call [PHONE_1] or mail \\u0022[PERSON_2]\\u0022"}');
    expect(JSON.parse(masked)).to.be.an('object');
    expect(fw.restoreToolArguments('{"to":"[EMAIL_1]","phone":"[PHONE_1]"}')).to.equal('{"to":"jan.devries@example.nl","phone":"+44 7911 123456"}');
    const url = fw.mask('{"link":"https://crm.example.com/search?email=jan%40example.nl\\u0026last_name=Bakker\\u0026first_name=Pieter"}');
    expect(url).not.to.match(/Bakker|Pieter|jan%40/);
    expect(url).to.contain('\\u0026last_name=');
  });

  it('reads a backslash before a letter as written outside a string, and after an escaped backslash (DOMAIN\\user, UNC paths)', () => {
    const fw = createFirewall({ language: 'auto' });
    expect(fw.mask('{"mailbox":"CORP\\\\tom.devries@corp.nl"}')).to.equal('{"mailbox":"CORP\\\\[EMAIL_1]"}');
    expect(fw.restore('[EMAIL_1]')).to.equal('tom.devries@corp.nl');
    expect(fw.mask('Share: \\\\fileserver\\home\\nina.jansen@corp.nl')).to.equal('Share: \\\\fileserver\\home\\[EMAIL_2]');
    expect(fw.restore('[EMAIL_2]')).to.equal('nina.jansen@corp.nl');
  });

  it('reads no-break spaces as spaces, written or escaped', () => {
    const mask = (text: string) => createFirewall({ language: 'auto' }).mask(text);
    expect(mask('Mon numéro : 06\u00a012\u00a034\u00a056\u00a078')).to.equal('Mon numéro : [PHONE_1]');
    expect(mask('{"t":"Tel.: +31\\u00a06\\u00a012345678"}')).to.equal('{"t":"Tel.: [PHONE_1]"}');
  });

  it('leaves escapes that name no one as written', () => {
    const fw = createFirewall({ language: 'auto' });
    for (const text of ['printf("hello\\n");', 'C:\\Users\\thomas\\x.txt', '{"unit":"\\u00b0C","price":"\\u20ac 12"}', 'split on "\\t" and "\\/"', 'a \\" quote']) {
      expect(fw.mask(text), text).to.equal(text);
    }
  });

  it('gives a value that holds an escaped quote back escaped once in a JSON answer, as written in a reply\'s text (QA, 2026-11-27)', () => {
    const fw = createFirewall({ language: 'auto' });
    const record = '{"klant":"Jan \\"JJ\\" de Vries","pad":"C:\\\\Users\\\\Jan de Vries\\\\Documents"}';
    const masked = fw.mask(record);
    expect(masked).not.to.match(/Vries|JJ/);
    expect(JSON.parse(masked)).to.be.an('object');
    // A JSON answer (response_format json_object) repeating the record parses to what was sent.
    expect(JSON.parse(fw.restoreToolArguments(masked))).to.deep.equal(JSON.parse(record));
    expect(JSON.parse(fw.restoreToolArguments('{"name":"[PERSON_1]"}')).name).to.equal('Jan "JJ" de Vries');
    // A reply's text that repeats the record stays the JSON it was.
    expect(JSON.parse(fw.restore(masked))).to.deep.equal(JSON.parse(record));
  });
});
