import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type Koa from 'koa';
import { ApiError } from '../errors.js';

// The web process's HTTP server, as the tests start it too.

// Node's default (16 KiB) answers a 431 to a search of a few thousand accented characters in a
// query string (`q` takes up to 10,000, each up to 9 bytes percent-encoded); headers stay bounded.
const MAX_HEADER_BYTES = 128 * 1024;

export function createHttpServer(app: Koa): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app.callback() as Parameters<typeof createServer>[1]);
  server.on('clientError', answerClientError);
  return server;
}

/**
 * A request Node refuses before the app sees it (headers too large, malformed) gets the contract's
 * error body, as every other error does, rather than a bare status line.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // Only parse errors are answered; a timeout or a reset socket has nobody to answer.
  if (!socket.writable || !err.code?.startsWith('HPE_')) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const message = tooLarge
    ? `the request's headers (its URL included) exceed ${MAX_HEADER_BYTES} bytes; send long search text in a POST body where the operation takes one`
    : 'the request is not valid HTTP';
  const body = JSON.stringify(new ApiError({ status, message, type: 'invalid_request_error', code: tooLarge ? 'headers_too_large' : 'bad_request' }).body());
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
