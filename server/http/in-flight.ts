// Which requests a server is still answering, so shutting down can wait for them and no more:
// Bun's graceful stop also waits for idle keep-alive connections until their idle time-out
// (up to 255 s for a surface that allows long answers), which is not worth waiting for.
export class InFlightRequests {
  private count = 0;
  private waiters: (() => void)[] = [];

  /** Counts `answer` as in flight until it settles. */
  async track<T>(answer: Promise<T>): Promise<T> {
    this.count++;
    try {
      return await answer;
    } finally {
      this.count--;
      if (this.count === 0) for (const resolve of this.waiters.splice(0)) resolve();
    }
  }

  /** Resolves once no request is being answered. */
  settled(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}
