// One timer that runs a callback at the earliest time asked of it (a later request never
// postpones an earlier one). The supervisor's pass catches anything a timer misses.
export class Wake {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private at = Number.POSITIVE_INFINITY;

  constructor(
    private readonly now: () => number,
    private readonly callback: () => void,
  ) {}

  request(time: number): void {
    if (this.timer && time >= this.at) return;
    if (this.timer) clearTimeout(this.timer);
    this.at = time;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.at = Number.POSITIVE_INFINITY;
      this.callback();
    }, Math.max(0, time - this.now()));
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.at = Number.POSITIVE_INFINITY;
  }
}
