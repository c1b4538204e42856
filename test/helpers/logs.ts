import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logger.js';

/** A real pino logger whose JSON lines are kept in memory, so tests can read what was logged. */
export function capturedLogger(level = 'info'): { log: Logger; lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const text = () => chunks.join('');
  return {
    log: createLogger(level, sink),
    text,
    lines: () =>
      text()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
