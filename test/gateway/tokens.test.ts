import { expect } from 'chai';
import { countTokens as libraryChatCount } from 'gpt-tokenizer/model/gpt-4o';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { ChatMessage } from '../../src/gateway/providers/types.js';
import {
  countTokensPaced,
  ATTACHMENT_TOKENS,
  MAX_RUN,
  REPLY_PRIMING_TOKENS,
  TOKENS_PER_MESSAGE,
  countCompletionTokens,
  countMessageTokens,
  countMessageTokensPaced,
  countTokens,
  isLongPrompt,
  truncateToTokens,
} from '../../src/gateway/tokens.js';

describe('gateway tokens (o200k_base)', () => {
  describe('countTokens', () => {
    // Figures checked against gpt-tokenizer's o200k_base encode().
    const known: [string, number][] = [
      ['', 0],
      ['hello world', 2],
      ['Hello, world!', 4],
      ['The quick brown fox jumps over the lazy dog.', 10],
      ['Bonjour, comment ça va ?', 6],
      ['Kündigung der Versicherung', 5],
      ['🙂', 1],
    ];
    for (const [text, n] of known) {
      it(`counts ${JSON.stringify(text)} as ${n}`, () => {
        expect(countTokens(text)).to.equal(n);
        expect(encode(text)).to.have.length(n);
      });
    }

    it('counts special-token lookalikes as plain text instead of throwing', () => {
      expect(() => encode('<|endoftext|>')).to.throw(); // the library's default
      expect(countTokens('<|endoftext|>')).to.equal(7);
      expect(countTokens('a <|im_start|> b')).to.be.greaterThan(3);
    });

    it('is exact for long ordinary text', () => {
      const prose = 'The quick brown fox jumps over the lazy dog. Le renard brun saute. '.repeat(1500).slice(0, 100_000);
      expect(countTokens(prose)).to.equal(encode(prose).length);
    });

    it('handles 100,000-character inputs, including a single unbroken run', function () {
      this.timeout(20_000);
      const inputs = [
        'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(2000).slice(0, 100_000),
        'a'.repeat(100_000),
        'é'.repeat(100_000),
        '!'.repeat(100_000),
        ' '.repeat(100_000),
        Array.from({ length: 100_000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 37) % 20_000))).join(''),
        Array.from({ length: 100_000 }, (_, i) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[(i * 7919) % 64]).join(''),
        '🙂'.repeat(50_000),
      ];
      for (const text of inputs) {
        const n = countTokens(text);
        expect(n).to.be.a('number').greaterThan(0);
      }
    });

    it('counts runs of millions of characters without overflowing the regex engine’s stack, paced or not', async () => {
      // QA: a 7,000,000-character run threw "Maximum call stack size exceeded" (a 500 on
      // embeddings, and on chat with the firewall off).
      for (const char of ['x', '-', ' ', '东']) {
        const run = char.repeat(7_000_000);
        const n = countTokens(run);
        expect(n, JSON.stringify(char)).to.be.greaterThan(0);
        expect(await countTokensPaced([run]), JSON.stringify(char)).to.deep.equal([n]);
      }
      // Within prose, a long run is counted in slices and the text around it as it was.
      const prose = 'Polis 12345 geldt. ';
      expect(countTokens(`${prose}${'x'.repeat(5_000_000)}${prose}`)).to.equal(countTokens(prose) * 2 + countTokens('x'.repeat(5_000_000)));
    });

    it('slices only runs longer than MAX_RUN, and never splits a surrogate pair', () => {
      const run = 'x'.repeat(MAX_RUN);
      expect(countTokens(run)).to.equal(encode(run).length);
      // An odd offset puts a slice boundary inside an emoji if the cut is naive.
      const emoji = 'a' + '🙂'.repeat(MAX_RUN);
      expect(countTokens(emoji)).to.be.greaterThan(0);
      expect(countTokens(emoji)).to.be.at.most(encode(emoji).length + 2);
    });
  });

  describe('truncateToTokens', () => {
    it('keeps the text when it fits and cuts to the first N tokens otherwise', () => {
      const text = 'The quick brown fox jumps over the lazy dog.';
      expect(truncateToTokens(text, 100)).to.equal(text);
      expect(truncateToTokens(text, 3)).to.equal('The quick brown');
      expect(truncateToTokens(text, 0)).to.equal('');
    });

    it('never cuts inside a character', () => {
      const text = 'naïve café 🙂🙂 über';
      for (let n = 0; n <= countTokens(text); n++) {
        const cut = truncateToTokens(text, n);
        expect(text.startsWith(cut)).to.equal(true);
        expect(cut).not.to.include('\uFFFD');
        expect(countTokens(cut)).to.be.at.most(n);
      }
    });
  });

  describe('countMessageTokens', () => {
    it('adds 3 per message and 3 for the reply priming (OpenAI convention)', () => {
      expect(countMessageTokens([])).to.equal(REPLY_PRIMING_TOKENS);
      const one: ChatMessage[] = [{ role: 'user', content: 'hello world' }];
      // 3 + "user" (1) + "hello world" (2) + 3
      expect(countMessageTokens(one)).to.equal(TOKENS_PER_MESSAGE + 1 + 2 + REPLY_PRIMING_TOKENS);
      expect(countMessageTokens(one)).to.equal(9);
    });

    it('agrees with the library’s chat count for gpt-4o on plain messages', () => {
      const chat: ChatMessage[] = [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: 'hello world' },
        { role: 'assistant', content: 'Hi! How can I help?' },
        { role: 'user', content: 'Wat is de hoofdstad van Nederland?' },
      ];
      const lib = libraryChatCount(chat.map((m) => ({ role: m.role as 'system' | 'user' | 'assistant', content: m.content as string })));
      expect(countMessageTokens(chat)).to.equal(lib);
    });

    it('counts text parts, a fixed estimate per attachment, names, tool calls and tool results', () => {
      const base = countMessageTokens([{ role: 'user', content: 'hello world' }]);
      const withImage = countMessageTokens([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hello world' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,' + 'A'.repeat(50_000) } },
          ],
        },
      ]);
      expect(withImage).to.equal(base + ATTACHMENT_TOKENS);

      const named = countMessageTokens([{ role: 'user', content: 'hello world', name: 'alice' }]);
      expect(named).to.equal(base + countTokens('alice') + 1);

      const tools = countMessageTokens([
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ]);
      const expected =
        2 * TOKENS_PER_MESSAGE +
        countTokens('assistant') +
        countTokens('get_weather') +
        countTokens('{"city":"Paris"}') +
        countTokens('tool') +
        countTokens('call_1') +
        countTokens('sunny') +
        REPLY_PRIMING_TOKENS;
      expect(tools).to.equal(expected);
    });
  });

  describe('countCompletionTokens', () => {
    it('counts content and tool call names and arguments', () => {
      expect(countCompletionTokens({ content: 'hello world' })).to.equal(2);
      expect(countCompletionTokens({ content: null })).to.equal(0);
      expect(
        countCompletionTokens({
          content: null,
          tool_calls: [{ function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        }),
      ).to.equal(countTokens('get_weather') + countTokens('{"city":"Paris"}'));
    });
  });

  it('counts a batch of megabytes as countTokens does, giving way to other requests as it goes', async () => {
    const prose = 'De polisvoorwaarden van verzekering 12345 gelden, ook voor Jan-Willem (06-12345678)! Ça va?  Zeker.\n'.repeat(3000);
    const texts = [prose, `${'a'.repeat(70_000)} ${prose}`, '东京都'.repeat(30_000), 'kort', '', `${' '.repeat(70_000)}x`];
    let pauses = 0;
    const paced = await countTokensPaced(texts, async () => {
      pauses++;
    });
    expect(paced).to.deep.equal(texts.map((text) => countTokens(text)));
    expect(pauses).to.be.at.least(6);
  });

  it('counts a prompt of megabytes paced as countMessageTokens counts it at once', async () => {
    const prose = 'De polisvoorwaarden van verzekering 12345 gelden, ook voor Jan-Willem (06-12345678)!\n'.repeat(4000);
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Je bent een assistent.' },
      { role: 'user', name: 'jan', content: [{ type: 'text', text: prose }, { type: 'image_url', image_url: { url: 'https://example.com/x.png' } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'zoek', arguments: JSON.stringify({ q: prose.slice(0, 90_000) }) } }] },
      { role: 'tool', tool_call_id: 'c1', content: prose },
    ];
    expect(isLongPrompt(messages)).to.equal(true);
    expect(isLongPrompt([{ role: 'user', content: 'kort' }])).to.equal(false);
    expect(await countMessageTokensPaced(messages)).to.equal(countMessageTokens(messages));
  });
});
