// Runs a worker's passes one at a time: a run repeats its pass while the pass says more may be
// due, and a kick during a run asks for one more pass after it (passes never overlap).
export class PassLoop {
  private running: Promise<number> | null = null;
  private again = false;

  constructor(
    /** One pass: how much it did, and whether another pass may find more right away. */
    private readonly pass: () => Promise<{ done: number; more: boolean }>,
    private readonly onError: (error: Error) => void,
  ) {}

  kick(): void {
    void this.run();
  }

  /** Resolves with what the passes did, once one finds nothing more to do now. */
  run(): Promise<number> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      let done = 0;
      try {
        do {
          this.again = false;
          const result = await this.pass();
          done += result.done;
          if (result.more) this.again = true;
        } while (this.again);
      } catch (error) {
        this.onError(error as Error);
      } finally {
        this.running = null;
      }
      return done;
    })();
    return this.running;
  }
}
