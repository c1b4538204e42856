import { expect } from 'chai';
import { CoalescedRun } from '../src/coalescedRun.js';
import { waitFor } from './helpers/db.js';

describe('CoalescedRun', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('runs once for all the requests of a window', async () => {
    let runs = 0;
    const run = new CoalescedRun(async () => {
      runs += 1;
    }, 20);
    for (let i = 0; i < 10; i++) run.request();
    await waitFor(async () => runs === 1, { what: 'the run' });
    await sleep(50);
    expect(runs).to.equal(1);
    await run.close();
  });

  it('runs once more for requests that arrive while it runs', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const run = new CoalescedRun(async () => {
      runs += 1;
      if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
    }, 5);
    run.request();
    await waitFor(async () => runs === 1, { what: 'the first run' });
    run.request();
    run.request();
    release();
    await waitFor(async () => runs === 2, { what: 'the second run' });
    await sleep(30);
    expect(runs).to.equal(2);
    await run.close();
  });

  it('starts nothing once closed, and waits for the run under way', async () => {
    let finished = 0;
    const run = new CoalescedRun(async () => {
      await sleep(30);
      finished += 1;
    }, 5);
    run.request();
    await sleep(15);
    await run.close();
    expect(finished).to.equal(1);
    run.request();
    await sleep(30);
    expect(finished).to.equal(1);
  });

  it('survives a task that rejects', async () => {
    let runs = 0;
    const run = new CoalescedRun(async () => {
      runs += 1;
      throw new Error('boom');
    }, 5);
    run.request();
    await waitFor(async () => runs === 1, { what: 'the failing run' });
    run.request();
    await waitFor(async () => runs === 2, { what: 'the next run' });
    await run.close();
  });
});
