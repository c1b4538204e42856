import type { Next } from 'koa';
import type { AppContext } from '../state.js';

/**
 * The requests whose handling has not finished. A socket closed at shutdown does not finish one:
 * a stream cut then still bills and traces what it streamed, and must do so before the pool and
 * the group commit close.
 */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  readonly middleware = async (_ctx: AppContext, next: Next): Promise<void> => {
    this.count++;
    try {
      await next();
    } finally {
      this.count--;
      if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
    }
  };

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
