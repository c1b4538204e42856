import type { Next } from 'koa';
import { ServerStopping } from '../../errors.js';
import type { AppContext } from '../state.js';

/**
 * The requests whose handling has not finished. A stream still running when the process must go
 * is stopped through its signal (stop): it bills and traces what it streamed and tells its client,
 * with the door's error event, before its socket closes and the pool and the group commit close.
 */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];
  private readonly stopping = new AbortController();
  private draining = false;

  readonly middleware = async (ctx: AppContext, next: Next): Promise<void> => {
    ctx.state.stopSignal = this.stopping.signal;
    this.count++;
    try {
      await next();
    } finally {
      // Koa writes the answer after this: a socket its client keeps alive goes with it.
      if (this.draining && !ctx.res.headersSent) ctx.res.setHeader('connection', 'close');
      this.count--;
      if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
    }
  };

  /**
   * From now on each answer not yet begun closes its socket: a client that keeps sockets alive (a
   * load balancer's pool, an SDK's agent) sends its next request to a process that is not stopping.
   */
  drain(): void {
    this.draining = true;
  }

  /** Aborts the signal of every request still being handled (and of any that arrives) with ServerStopping. */
  stop(): void {
    this.stopping.abort(new ServerStopping());
  }

  /** Resolves once no request is being handled, or after `timeoutMs`. */
  async settled(timeoutMs: number): Promise<void> {
    if (this.count === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
