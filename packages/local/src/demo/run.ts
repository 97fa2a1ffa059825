/**
 * What the demo started, and how it stops. Ctrl-C (or SIGTERM) only cuts a
 * wait short, so that the demo can still archive its campaign, remove its
 * mailbox and stop its engine and SMTP server, in the reverse of the order
 * they were set up.
 */
import { say } from './output.ts';

export class DemoRun {
  interrupted = false;
  private readonly cleanups: (() => Promise<void>)[] = [];
  private wake: () => void = () => {};
  private readonly onSignal = () => {
    if (this.interrupted) return;
    this.interrupted = true;
    say('\nCtrl-C: stopping what the demo started…');
    this.wake();
  };

  constructor() {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  /** Undone when the demo ends, before anything registered earlier. */
  onStop(fn: () => Promise<void>): void {
    this.cleanups.push(fn);
  }

  /** Undone after everything else, whenever it is registered (the engine may still be using it until then). */
  onStopLast(fn: () => Promise<void>): void {
    this.cleanups.unshift(fn);
  }

  /** Waits `ms`, or less when interrupted. */
  pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      setTimeout(resolve, ms);
    });
  }

  untilInterrupted(): Promise<void> {
    if (this.interrupted) return Promise.resolve();
    return new Promise((resolve) => (this.wake = resolve));
  }

  async stop(): Promise<void> {
    process.removeListener('SIGINT', this.onSignal);
    process.once('SIGINT', () => process.exit(130)); // a second Ctrl-C does not wait for the clean stop
    for (const fn of this.cleanups.splice(0).reverse()) await fn().catch(() => {});
  }
}
