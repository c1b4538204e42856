import { expectMasksAndRestores, expectUnchanged } from './qaSamples.js';

// QA 2026-11-27 (third round): addresses, phone numbers and id documents, the inputs as QA sent them.

describe('QA 2026-11-27c: a date followed by a time is no phone number', () => {
  it('leaves the timestamps of a chat log or export alone, over any number of lines', () => {
    expectUnchanged([
      '[26-11-24 09:14:22] a\n[26-11-24 09:15:03] b\n[26-11-24 09:15:40] c',
      '26-11-24 09:14 a\n26-11-24 09:15 b\n26-11-24 09:16 c',
      '26.11.24 09:14 ok\n27.11.24 10:15 ok\n28.11.24 11:16 ok',
      '11/26/24 09:14 a\n11/26/24 09:15 b\n11/26/24 09:16 c',
    ]);
  });

  it('still masks a phone number on such a line, and one written with a time beside it', () => {
    expectMasksAndRestores('[26-11-24 09:14:22] bel me op 06-12345678\n[26-11-24 09:15:03] ok\n[26-11-24 09:15:40] ok', '[26-11-24 09:14:22] bel me op [PHONE_1]\n[26-11-24 09:15:03] ok\n[26-11-24 09:15:40] ok');
    expectMasksAndRestores('call 020 123 4567 at 09:30', 'call [PHONE_1] at 09:30');
  });
});
