import { expect } from 'chai';
import { ChannelListener } from '../../src/db/listener.js';
import { backoffDelay } from '../../src/db/backoff.js';
import { createTestDatabase, waitFor, type TestDatabase } from '../helpers/db.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcpProxy.js';

// The LISTEN connection of every web process comes back by itself after the database does; while
// it is away, each process retries less and less often, so a fleet of them does not storm a server
// that is starting up or recovering.
describe('ChannelListener reconnects', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let proxy: TcpProxy;
  before(async () => {
    db = await createTestDatabase();
    const { hostname, port } = new URL(db.url);
    proxy = await startTcpProxy({ host: hostname, port: Number(port || 5432) });
  });
  after(async () => {
    await proxy.close();
    await db.drop();
  });

  function newListener(options: { reconnectDelayMs: number; maxReconnectDelayMs?: number }) {
    const losses: { at: number; stage: string; retryInMs: number }[] = [];
    let listening = 0;
    const listener = new ChannelListener(
      { connectionString: proxy.urlThrough(db.url), channel: 'polder_listener_test', applicationName: 'polder-listener-test', ...options },
      {
        listening: async () => {
          listening += 1;
        },
        notified: () => undefined,
        lost: (_err, stage, retryInMs) => losses.push({ at: Date.now(), stage, retryInMs }),
      },
    );
    return { listener, losses, listening: () => listening };
  }

  it('waits longer after each failed attempt, up to its cap, and starts again from the shortest pause once connected', async () => {
    const { listener, losses, listening } = newListener({ reconnectDelayMs: 20, maxReconnectDelayMs: 320 });
    try {
      await listener.start();
      expect(listening()).to.equal(1);
      await proxy.cut();
      await waitFor(async () => losses.length >= 7, { what: 'seven failed attempts' });
      expect(losses[0]!.stage).to.equal('connected');
      expect(losses.slice(1).every((loss) => loss.stage === 'connecting')).to.equal(true);
      // Each pause is drawn from the upper half of 20 ms, 40, 80, 160, 320, 320 …
      const announced = losses.slice(0, 7).map((loss) => loss.retryInMs);
      announced.forEach((pause, i) => {
        const ceiling = Math.min(320, 20 * 2 ** i);
        expect(pause, `pause ${i}`).to.be.within(ceiling / 2, ceiling);
      });
      const gaps = losses.slice(1, 7).map((loss, i) => loss.at - losses[i]!.at);
      gaps.forEach((gap, i) => expect(gap, `gap ${i}`).to.be.at.least(announced[i]! - 5));

      await proxy.restore();
      await waitFor(async () => listening() === 2, { what: 'the listener to come back' });
      await proxy.cut();
      await waitFor(async () => losses.length >= 8, { what: 'the next loss' });
      expect(losses[7]!.retryInMs).to.be.at.most(20);
    } finally {
      await proxy.restore();
      await listener.close();
    }
  });

  it('draws every pause from the upper half of a doubling ceiling', () => {
    expect(backoffDelay(0, { initialMs: 100, maxMs: 1000 }, () => 0)).to.equal(50);
    expect(backoffDelay(0, { initialMs: 100, maxMs: 1000 }, () => 1)).to.equal(100);
    expect(backoffDelay(3, { initialMs: 100, maxMs: 1000 }, () => 1)).to.equal(800);
    expect(backoffDelay(50, { initialMs: 100, maxMs: 1000 }, () => 1)).to.equal(1000);
  });
});
