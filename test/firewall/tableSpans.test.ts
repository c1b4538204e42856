import { expect } from 'chai';
import { tableSpans } from '../../src/firewall/index.js';

// The tables a document's chunks repeat the header of (memory/ingest.ts).
describe('tableSpans', () => {
  it('finds a table of personal data wherever it starts, with the part its rows fill', () => {
    const table = '| naam | kamer |\n|---|---|\n| Ngozi Okonkwo | Kamer0 |\n| Tupac Quispe | Kamer1 |';
    const text = `# Klantenlijst\n\nDe bewoners per kamer:\n\n${table}\n\nEinde van de lijst.`;
    const spans = tableSpans(text);
    expect(spans).to.have.length(1);
    expect(spans[0]!.header).to.equal('| naam | kamer |');
    expect(text.slice(spans[0]!.rowsStart, spans[0]!.end)).to.equal('|---|---|\n| Ngozi Okonkwo | Kamer0 |\n| Tupac Quispe | Kamer1 |');
  });

  it('finds each of several tables, CSV and Markdown, and a table on the first line as before', () => {
    const text = 'naam,email\nAnna Jansen,anna@example.nl\n\nTekst ertussen.\n\nname;phone\r\nPiet;0612345678\r\n';
    expect(tableSpans(text).map((span) => span.header)).to.deep.equal(['naam,email', 'name;phone']);
  });

  it('leaves out tables about things, prose with commas, and a header without rows', () => {
    expect(tableSpans('sku,price\nA1,3.50\nB2,4.00')).to.deep.equal([]);
    expect(tableSpans('Hello, world.\nThis, that and the other.')).to.deep.equal([]);
    expect(tableSpans('Intro\n\nnaam,email\n\nno rows here')).to.deep.equal([]);
  });
});
