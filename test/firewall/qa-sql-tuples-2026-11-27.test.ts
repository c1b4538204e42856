import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// QA 2026-11-27, business text: an INSERT whose values stand on lines of their own. The value's
// cell took the line break, the indent and both quotes ("VALUES ([EMAIL_1]);"): the model saw
// broken SQL, though the caller got it back whole.
describe('firewall QA: SQL values over several lines', () => {
  const roundTrip = (text: string) => {
    const firewall = createFirewall({ language: 'auto' });
    const masked = firewall.mask(text);
    expect(firewall.restore(masked)).to.equal(text);
    return masked;
  };

  it('masks each value alone, keeping the line breaks, indents and quotes around it', () => {
    expect(roundTrip("INSERT INTO claims (holder_email) VALUES (\n  'kees.dewit@ziggo.nl'\n);")).to.equal(
      "INSERT INTO claims (holder_email) VALUES (\n  '[EMAIL_1]'\n);",
    );
    expect(roundTrip("INSERT INTO claims (holder_name, holder_email) VALUES (\n  'Kees de Wit',\n  'kees.dewit@ziggo.nl'\n);")).to.equal(
      "INSERT INTO claims (holder_name, holder_email) VALUES (\n  '[PERSON_1]',\n  '[EMAIL_1]'\n);",
    );
    expect(roundTrip("INSERT INTO claims (holder_name, amount) VALUES (\r\n  'Kees de Wit',\r\n  1250\r\n);")).to.equal(
      "INSERT INTO claims (holder_name, amount) VALUES (\r\n  '[PERSON_1]',\r\n  1250\r\n);",
    );
  });

  it('leaves the name of a row of a table of things as it was, on one line or over several', () => {
    for (const text of [
      "INSERT INTO products (name, sku) VALUES (\n  'Wireless Mouse',\n  'WM-2210'\n);",
      "INSERT INTO products (name, sku) VALUES ('Wireless Mouse', 'WM-2210');",
      "INSERT INTO product_catalog (name) VALUES ('Grace Hopper Edition');",
    ]) {
      expect(roundTrip(text), text).to.equal(text);
    }
    // A table of people's rows: the name is a person's.
    expect(roundTrip("INSERT INTO customers (name, email) VALUES ('Kees de Wit', 'k@x.nl');")).to.equal(
      "INSERT INTO customers (name, email) VALUES ('[PERSON_1]', '[EMAIL_1]');",
    );
  });
});
