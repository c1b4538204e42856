/**
 * Runs a task at most once per window: the first request starts the window, the requests that
 * follow within it share its run, and a request that arrives while the task runs gets one more
 * run, a window later. For work whose cost is per run, not per request (a notification, a job).
 */
export class CoalescedRun {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private requestedWhileRunning = false;
  private closed = false;

  /** `task` reports its own failures; a rejection is dropped. */
  constructor(
    private readonly task: () => Promise<void>,
    private readonly windowMs: number,
  ) {}

  request(): void {
    if (this.closed) return;
    if (this.running) {
      this.requestedWhileRunning = true;
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.running = this.task()
        .catch(() => undefined)
        .finally(() => {
          this.running = undefined;
          if (this.requestedWhileRunning) {
            this.requestedWhileRunning = false;
            this.request();
          }
        });
    }, this.windowMs);
  }

  /** No run starts after this; waits for the one under way. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
