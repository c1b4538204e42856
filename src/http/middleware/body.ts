import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import type { Next } from 'koa';
import { badRequest, clientGone, payloadTooLarge, unsupportedMediaType, validationFailed } from '../../errors.js';
import type { AppContext } from '../state.js';
import { jsonTextShape, MAX_JSON_DEPTH, pathDeeperThan } from '../../jsonDepth.js';
import { unstorableFieldErrors } from './refuseNul.js';

/**
 * Reads and parses the JSON body, refusing more than `limitBytes` as soon as the limit is crossed
 * (never buffering an oversized upload). An absent body is allowed only when `optional`.
 */
export function jsonBody(limitBytes: number, { optional = false } = {}) {
  return async function jsonBodyMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const decompress = bodyDecoder(ctx);
    const declared = Number(ctx.get('content-length') || NaN);
    if (declared > limitBytes) throw payloadTooLarge(limitBytes);
    const read = await readBody(ctx.req, limitBytes);
    if (read === 'too large') {
      // The rest of the upload is not read: the connection closes once the 413 is sent.
      ctx.set('Connection', 'close');
      throw payloadTooLarge(limitBytes);
    }
    const bytes = decompress ? await decompressed(decompress, read, limitBytes) : read;
    // JSON is UTF-8 (RFC 8259): Latin-1 sent without a charset would be stored as U+FFFD, and a
    // name split by it would pass the firewall unrecognised.
    if (!isUtf8(bytes)) throw badRequest('the request body is not valid UTF-8; send JSON encoded as UTF-8', 'invalid_json');
    const decoded = bytes.toString('utf8');
    // RFC 8259 lets a parser ignore a byte order mark, which some Windows tools write.
    const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
    if (text.trim() === '') {
      if (!optional) throw badRequest('the request body must be a JSON object', 'invalid_json');
      ctx.state.body = undefined;
    } else {
      // Before it is parsed: parsing costs by the number of values, and nothing can refuse it meanwhile.
      const shape = jsonTextShape(text);
      if (shape.tooWide) throw payloadTooLarge(limitBytes, `the request body holds ${shape.tooWide}: more than any request takes, and more than it may cost to read`);
      try {
        ctx.state.body = JSON.parse(text);
      } catch (err) {
        throw badRequest(`the request body is not valid JSON: ${(err as Error).message}`, 'invalid_json');
      }
      // Before anything walks the body (the NUL check below, validation, hashing).
      if (shape.tooDeep) {
        throw validationFailed({ [pathDeeperThan(ctx.state.body) ?? 'body']: [`nests deeper than ${MAX_JSON_DEPTH} levels`] });
      }
      // Valid UTF-8 can carry a NUL or a lone surrogate only as an escape; the walk is paid only by
      // bodies that have one (a surrogate pair escaped, as Python's json.dumps writes emoji, too).
      const unstorable = text.includes('\\u0000') || SURROGATE_ESCAPE.test(text) ? unstorableFieldErrors(ctx.state.body) : undefined;
      if (unstorable) throw validationFailed(unstorable);
    }
    await next();
  };
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

type Decompress = (body: Buffer, options: { maxOutputLength: number }, done: (err: Error | null, result: Buffer) => void) => void;
const DECOMPRESS: Record<string, Decompress> = { gzip: gunzip, 'x-gzip': gunzip, deflate: inflate, br: brotliDecompress };
// What the body's bytes may be: JSON in UTF-8 (ASCII is UTF-8).
const UTF8_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii']);

/**
 * How to read the body as sent, refusing (400, code unsupported_media_type) what would otherwise be misread: a
 * compression it does not take, a charset other than UTF-8 (a Latin-1 "é" would be stored as "�"),
 * or a form upload (whose error would be a JSON parse error at position 1).
 */
function bodyDecoder(ctx: AppContext): Decompress | undefined {
  const type = ctx.get('content-type').toLowerCase();
  if (type.startsWith('multipart/')) {
    throw unsupportedMediaType('the request body must be JSON (Content-Type: application/json); form and file uploads are not taken (a document is sent as its text)');
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/.exec(type)?.[1];
  if (charset !== undefined && !UTF8_CHARSETS.has(charset)) {
    throw unsupportedMediaType(`the request body must be UTF-8; charset=${charset} is not taken`);
  }
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return undefined;
  const decompress = Object.hasOwn(DECOMPRESS, encoding) ? DECOMPRESS[encoding] : undefined;
  if (!decompress) throw unsupportedMediaType(`Content-Encoding ${encoding} is not taken; send the body uncompressed, or as gzip, deflate or br`);
  return decompress;
}

/** The body decompressed (off the event loop), no larger than the limit. */
async function decompressed(decompress: Decompress, body: Buffer, limitBytes: number): Promise<Buffer> {
  try {
    return await new Promise<Buffer>((resolve, reject) =>
      decompress(body, { maxOutputLength: limitBytes }, (err, result) => (err ? reject(err) : resolve(result))),
    );
  } catch (err) {
    if (err instanceof RangeError || (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw payloadTooLarge(limitBytes);
    throw badRequest(`the request body could not be decompressed: ${(err as Error).message}`, 'invalid_json');
  }
}

// Plain stream events: an async iterator over the request costs several objects and promises per
// request, a measurable share of the gateway's CPU for bodies that arrive in one chunk.
function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer | 'too large'> {
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: () => void) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        req.pause();
        finish(() => resolve('too large'));
      } else chunks.push(chunk);
    };
    const onEnd = () => finish(() => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    // A client that went away mid-upload ('aborted', then 'close') is not the service's fault: 499.
    const onError = (err: Error) => finish(() => reject((err as { code?: string }).code === 'ECONNRESET' ? clientGone() : err));
    const onClose = () => finish(() => reject(clientGone()));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
