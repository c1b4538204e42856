import { expect } from 'chai';
import { createFirewall } from '../../src/firewall/index.js';

// QA findings on prose, e-mail headers and log lines, with the samples as QA sent them.
describe('firewall QA: places, header names, log lines', () => {
  it('leaves "at <domain>" alone: a shop or a site is not a spelled-out e-mail', () => {
    const places = [
      'I bought it at Amazon.com and returned it at bol.com, but the refund showed up twice at Booking.com',
      'The source code is available at github.com and the docs at docs.python.org.',
      'Sign up at example.org, then log in at app.example.org.',
      'She works at Google.com?',
      'got charged twice at Booking.com',
    ];
    for (const text of places) expect(createFirewall().mask(text), text).to.equal(text);
  });

  it('still masks an e-mail spelled out with "at" and "dot"', () => {
    expect(createFirewall().mask('mail jan dot jansen at gmail dot com please')).to.equal('mail [EMAIL_1] please');
    expect(createFirewall().mask('mail jan at gmail dot com please')).to.equal('mail [EMAIL_1] please');
  });
});
