// An incremental Server-Sent Events parser (the WHATWG "event stream" format) for provider
// streams. Bytes may be split anywhere by the network: inside a line, inside a multi-byte UTF-8
// character, or between the \r and \n of a line break.
//
// It works on bytes and decodes only complete lines: \n and \r never occur inside a multi-byte
// UTF-8 sequence, so a character split across two pieces is simply part of a line that is not
// complete yet, kept as bytes until its break arrives. Line breaks are found with
// Buffer.indexOf (memchr), and a `data:` line is decoded once, straight from the socket's
// buffer, into the string the caller parses as JSON: no per-byte JavaScript loop, no regex.
//
// Handled as the format specifies: \r\n, \n and \r line breaks (a \r ending one piece and a \n
// starting the next are one break); `data:` with or without its one optional space; several
// `data` lines joined with \n; `event:`; `id:`, `retry:` and unknown fields ignored; `:` comment
// lines; a leading byte-order mark. What an event means (JSON, `[DONE]`) is the caller's.

export interface SseEvent {
  /** The `event:` field, or 'message' when the event had none. */
  event: string;
  /** The `data:` lines joined with \n. */
  data: string;
}

/** A line longer than this (without a line break) is treated as a broken stream. */
export const MAX_SSE_LINE = 8 * 1024 * 1024;

export class SseError extends Error {
  override name = 'SseError';
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

export class SseParser {
  /** The start of a line whose break has not arrived yet (bytes: it may end mid-character). */
  private partial: Buffer[] = [];
  private partialLength = 0;
  /** The previous piece ended with \r: a \n starting the next one belongs to that break. */
  private skipLf = false;
  /** The first line has been seen (it may start with a byte-order mark). */
  private started = false;
  private data = '';
  private hasData = false;
  private event = '';

  /** Feeds the next bytes; appends the events they complete to `out`. */
  push(bytes: Uint8Array, out: SseEvent[]): void {
    const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const n = buf.length;
    let pos = 0;
    if (n === 0) return;
    if (this.skipLf) {
      this.skipLf = false;
      if (buf[0] === LF) pos = 1;
    }
    let lf = buf.indexOf(LF, pos);
    let cr = buf.indexOf(CR, pos);
    while (pos < n) {
      if (lf !== -1 && lf < pos) lf = buf.indexOf(LF, pos);
      if (cr !== -1 && cr < pos) cr = buf.indexOf(CR, pos);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr + 1 < n) next = buf[cr + 1] === LF ? cr + 2 : cr + 1;
        else {
          next = n;
          this.skipLf = true;
        }
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else break;
      if (this.partialLength > 0) {
        const line = this.takePartial(buf.subarray(pos, end));
        this.line(line, 0, line.length, out);
      } else {
        this.line(buf, pos, end, out);
      }
      pos = next;
    }
    if (pos < n) {
      this.partialLength += n - pos;
      if (this.partialLength > MAX_SSE_LINE) throw new SseError(`an event-stream line exceeded ${MAX_SSE_LINE} bytes`);
      // Copied: the caller may reuse its buffer.
      this.partial.push(Buffer.from(buf.subarray(pos)));
    }
  }

  private takePartial(tail: Buffer | undefined): Buffer {
    const parts = this.partial;
    if (tail !== undefined && tail.length > 0) parts.push(tail);
    const line = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    this.partial = [];
    this.partialLength = 0;
    return line;
  }

  /** The stream ended: completes a last line and event left without their blank line. */
  end(out: SseEvent[]): void {
    if (this.partialLength > 0) {
      const line = this.takePartial(undefined);
      this.line(line, 0, line.length, out);
    }
    // Lenient: the format says an event without its terminating blank line is discarded, but
    // some servers end with `data: [DONE]\n` and close; dispatching lets the caller decide.
    this.dispatch(out);
  }

  private line(buf: Buffer, start: number, end: number, out: SseEvent[]): void {
    if (!this.started) {
      this.started = true;
      if (end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
    }
    if (start === end) {
      this.dispatch(out);
      return;
    }
    const c0 = buf[start];
    if (c0 === COLON) return; // a comment, e.g. `: keep-alive`
    // The hot case, `data:` (d a t a), without decoding the field name.
    if (
      c0 === 0x64 &&
      end - start >= 4 &&
      buf[start + 1] === 0x61 &&
      buf[start + 2] === 0x74 &&
      buf[start + 3] === 0x61 &&
      (end - start === 4 || buf[start + 4] === COLON)
    ) {
      let v = start + 5;
      if (v < end && buf[v] === SPACE) v++;
      this.appendData(v < end ? buf.toString('utf8', v, end) : '');
      return;
    }
    const colon = buf.indexOf(COLON, start);
    const fieldEnd = colon === -1 || colon >= end ? end : colon;
    const field = buf.toString('latin1', start, fieldEnd);
    if (field === 'event') {
      let v = fieldEnd + 1;
      if (v < end && buf[v] === SPACE) v++;
      this.event = v < end ? buf.toString('utf8', v, end) : '';
    }
    // `id`, `retry` and unknown fields carry nothing a provider stream needs.
  }

  private appendData(value: string): void {
    if (this.hasData) this.data += '\n' + value;
    else {
      this.data = value;
      this.hasData = true;
    }
  }

  private dispatch(out: SseEvent[]): void {
    if (this.hasData) out.push({ event: this.event || 'message', data: this.data });
    this.data = '';
    this.hasData = false;
    this.event = '';
  }
}
