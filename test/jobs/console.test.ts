import { expect } from 'chai';
import { routeConsoleToLog } from '../../src/jobs/console.js';
import { capturedLogger } from '../helpers/logs.js';

// graphile-worker writes some errors with console.trace; the worker's logs must stay pino JSON.
describe('routeConsoleToLog', () => {
  it('logs console.trace of an error as one JSON line with its stack, and puts the console back', () => {
    const logs = capturedLogger('debug');
    const written: unknown[][] = [];
    const fakeConsole = {
      trace: (...args: unknown[]) => void written.push(args),
      debug: (...args: unknown[]) => void written.push(args),
      info: (...args: unknown[]) => void written.push(args),
      log: (...args: unknown[]) => void written.push(args),
      warn: (...args: unknown[]) => void written.push(args),
      error: (...args: unknown[]) => void written.push(args),
    };
    const restore = routeConsoleToLog(logs.log, fakeConsole);
    const error = Object.assign(new Error('sorry, too many clients already'), { code: '53300' });
    fakeConsole.trace(error);
    fakeConsole.error('completeJobs: attempt %d/%d failed', 1, 20);
    expect(written).to.deep.equal([]);
    // Every line is one JSON object (capturedLogger parses each).
    const lines = logs.lines();
    expect(lines).to.have.length(2);
    expect(lines[0]).to.include({ level: 40, console: 'trace', msg: 'sorry, too many clients already' });
    expect((lines[0]!.err as { stack: string; code: string }).code).to.equal('53300');
    expect((lines[0]!.err as { stack: string }).stack).to.contain('Error: sorry, too many clients already');
    expect(lines[1]).to.include({ level: 40, console: 'error', msg: 'completeJobs: attempt 1/20 failed' });
    restore();
    fakeConsole.trace('after');
    expect(written).to.deep.equal([['after']]);
  });
});
