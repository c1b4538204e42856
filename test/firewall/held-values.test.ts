import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/firewall.js';

// A value found in one text of a request is masked where another text repeats it with nothing
// around it to say what it is (Firewall.heldValuesMasker, detect.ts: repeatIndex, findRepeats).

/** The texts as they leave: each masked in order, then all read once more for the values held. */
async function maskConversation(texts: string[]): Promise<{ masked: string[]; restore: (text: string) => string }> {
  const firewall = createFirewall({ language: 'auto' });
  const first: string[] = [];
  for (const text of texts) first.push(await firewall.maskAsync(text));
  const maskHeld = firewall.heldValuesMasker();
  const masked: string[] = [];
  for (const text of first) masked.push(await maskHeld(text));
  return { masked, restore: (text) => firewall.restore(text) };
}

describe('values found again in the other texts of a request', () => {
  it('masks a number given under its label where another message repeats it bare, earlier or later, with the same placeholder', async () => {
    const { masked } = await maskConversation(['Is 88123456 al verwerkt?', 'Klantnummer: 88123456.', 'Dus 88123456, graag.']);
    expect(masked[1]).to.equal('Klantnummer: [CUSTOMER_REF_1].');
    expect(masked[0]).to.equal('Is [CUSTOMER_REF_1] al verwerkt?');
    expect(masked[2]).to.equal('Dus [CUSTOMER_REF_1], graag.');
  });

  it('masks a name given with a cue where it comes back whole, in any case, and restores it', async () => {
    const { masked, restore } = await maskConversation(['My name is Xavi Oyelaran.', 'xavi oyelaran here again']);
    expect(masked[0]).to.equal('My name is [PERSON_1].');
    expect(masked[1]).to.equal('[PERSON_1] here again');
    expect(restore(masked[1]!)).to.equal('Xavi Oyelaran here again');
  });

  it('leaves a part of a name alone in the other texts: there it is as often the word it also is (QA: "Der Koch kocht", "Julia is faster")', async () => {
    const { masked } = await maskConversation(['Ich heiße Hans Koch.', 'Der Koch kocht.', 'Hans Koch kommt.', 'My name is Julia Roberts.', 'Julia is faster than Python.']);
    expect(masked[1]).to.equal('Der Koch kocht.');
    expect(masked[2]).to.equal('[PERSON_1] kommt.');
    expect(masked[4]).to.equal('Julia is faster than Python.');
  });

  it('leaves a short number alone in the other texts: it recurs by chance (QA: "Kundennummer: 123" … "Zimmer 123")', async () => {
    const { masked } = await maskConversation(['Kundennummer: 123', 'Zimmer 123 ist frei.']);
    expect(masked[1]).to.equal('Zimmer 123 ist frei.');
  });

  it('quotes the placeholder of a number found again in JSON, which stays valid (QA: {"customer_id":[CUSTOMER_REF_1]} did not parse)', async () => {
    const { masked } = await maskConversation(['Customer number: 4471882', '{"customer_id":4471882, "ids": ["4471882", 4471882]}']);
    expect(JSON.parse(masked[1]!)).to.deep.equal({ customer_id: '[CUSTOMER_REF_1]', ids: ['[CUSTOMER_REF_1]', '[CUSTOMER_REF_1]'] });
  });

  it("leaves placeholders and JSON as they were: a value in a tool call's arguments gets a placeholder that keeps the JSON valid", async () => {
    const { masked } = await maskConversation(['Klantnummer: 88123456 (PERSON_1 in het oude systeem)', '{"customer":"88123456","note":"[PERSON_1]"}']);
    expect(masked[0]).to.equal('Klantnummer: [CUSTOMER_REF_1] (PERSON_1 in het oude systeem)');
    expect(JSON.parse(masked[1]!)).to.deep.equal({ customer: '[CUSTOMER_REF_1]', note: '[PERSON_1]' });
  });

  it('finds a value only as whole words: not inside a longer number or word', async () => {
    const { masked } = await maskConversation(['Klantnummer: 88123456.', 'Order 188123456 and 88123456789 and Xx88123456 are other numbers.']);
    expect(masked[1]).to.equal('Order 188123456 and 88123456789 and Xx88123456 are other numbers.');
  });

  it('reads a megabyte that starts values at every word, against thousands of held values, giving the event loop its turn', async () => {
    let pauses = 0;
    const firewall = createFirewall({ language: 'en', pause: async () => void pauses++ });
    for (let i = 0; i < 3000; i++) firewall.vault.placeholderFor({ type: 'PERSON', text: `Anna Zq${i.toString(36)}xw` });
    firewall.vault.placeholderFor({ type: 'CUSTOMER_REF', text: '88123456' });
    const masked = await firewall.heldValuesMasker()('Anna Zq0xw, 88123456 and Anna '.repeat(32_000));
    expect(masked.startsWith('[PERSON_1], [CUSTOMER_REF_1] and Anna [PERSON_1], ')).to.equal(true);
    // Each value is looked up by its first word, at most eight a word: the cost stays linear.
    expect(masked).not.to.match(/Zq0xw|88123456/);
    expect(pauses).to.be.above(50);
  });
});
