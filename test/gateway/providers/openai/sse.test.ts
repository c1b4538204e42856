import { expect } from 'chai';
import { MAX_SSE_LINE, SseError, type SseEvent, SseParser } from '../../../../src/gateway/providers/openai/sse.js';

/** Feeds `bytes` to a fresh parser in pieces cut at `cuts` (byte offsets), then ends it. */
function parse(bytes: Uint8Array, pieceSize?: number): SseEvent[] {
  const parser = new SseParser();
  const out: SseEvent[] = [];
  const size = pieceSize ?? bytes.length;
  for (let i = 0; i < bytes.length; i += size) parser.push(bytes.subarray(i, i + size), out);
  parser.end(out);
  return out;
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('openai adapter: SSE parser', () => {
  const text =
    ': OPENROUTER PROCESSING\r\n' +
    '\r\n' +
    'data: {"content":"café"}\r\n' +
    '\r\n' +
    'data:{"content":"😀 no space"}\n' +
    '\n' +
    'event: message\r' +
    'data: line one\r' +
    'data: line two\r' +
    'id: 7\r' +
    'retry: 1000\r' +
    '\r' +
    'data\n' +
    '\n' +
    'data:  two spaces keep one\n' +
    '\n' +
    'event: error\n' +
    'data: {"error":{"message":"boom"}}\n' +
    '\n' +
    'data: [DONE]\n' +
    '\n';
  const expected: SseEvent[] = [
    { event: 'message', data: '{"content":"café"}' },
    { event: 'message', data: '{"content":"😀 no space"}' },
    { event: 'message', data: 'line one\nline two' },
    { event: 'message', data: '' },
    { event: 'message', data: ' two spaces keep one' },
    { event: 'error', data: '{"error":{"message":"boom"}}' },
    { event: 'message', data: '[DONE]' },
  ];

  it('parses a whole stream in one piece', () => {
    expect(parse(enc(text))).to.deep.equal(expected);
  });

  it('gives the same events fed byte by byte (multi-byte characters and \\r\\n split)', () => {
    expect(parse(enc(text), 1)).to.deep.equal(expected);
  });

  it('gives the same events for every piece size', () => {
    const bytes = enc(text);
    for (let size = 2; size <= 17; size++) expect(parse(bytes, size), `pieces of ${size}`).to.deep.equal(expected);
  });

  it('splits a 4-byte emoji and a 2-byte é across pushes without mangling them', () => {
    const bytes = enc('data: é😀é\n\n');
    const parser = new SseParser();
    const out: SseEvent[] = [];
    // "data: " is 6 bytes, é is 2, 😀 is 4: cut inside each character.
    for (const [a, b] of [
      [0, 7],
      [7, 9],
      [9, 10],
      [10, 12],
      [12, bytes.length],
    ] as const) {
      parser.push(bytes.subarray(a, b), out);
    }
    expect(out).to.deep.equal([{ event: 'message', data: 'é😀é' }]);
  });

  it('treats a \\r at the end of one piece and \\n at the start of the next as one line break', () => {
    const parser = new SseParser();
    const out: SseEvent[] = [];
    parser.push(enc('data: a\r'), out);
    parser.push(enc('\n\r'), out);
    parser.push(enc('\n'), out);
    expect(out).to.deep.equal([{ event: 'message', data: 'a' }]);
    parser.push(enc('data: b\n\n'), out);
    expect(out).to.deep.equal([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
    ]);
  });

  it('ignores comment-only streams and keep-alives', () => {
    expect(parse(enc(': keep-alive\n\n: keep-alive\n\n'))).to.deep.equal([]);
  });

  it('drops a leading byte-order mark', () => {
    expect(parse(Uint8Array.from([0xef, 0xbb, 0xbf, ...enc('data: x\n\n')]), 1)).to.deep.equal([{ event: 'message', data: 'x' }]);
  });

  it('at the end, dispatches an event left without its blank line', () => {
    expect(parse(enc('data: {"a":1}\n\ndata: [DONE]'))).to.deep.equal([
      { event: 'message', data: '{"a":1}' },
      { event: 'message', data: '[DONE]' },
    ]);
  });

  it('refuses a line that never ends', () => {
    const parser = new SseParser();
    const piece = enc('x'.repeat(1024 * 1024));
    expect(() => {
      for (let i = 0; i <= MAX_SSE_LINE / piece.length; i++) parser.push(piece, []);
    }).to.throw(SseError);
  });
});
