/**
 * Runs an async job once for a burst of triggers. Free of the `vscode` module.
 *
 * `trigger()` (re)starts a quiet period; when it passes, the job runs. A
 * trigger that comes while the job runs makes it run once more afterwards,
 * never twice at the same time.
 */
export class Coalescer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly quietMs: number,
    private readonly job: () => Promise<void>,
  ) {}

  trigger(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, this.quietMs);
  }

  dispose(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private async run(): Promise<void> {
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.job();
        } catch {
          // the job reports its own failures
        }
      } while (this.again);
    })();
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
  }
}
