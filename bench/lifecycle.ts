// point starts is tracked here, so Ctrl-C (SIGINT), SIGTERM or an error stops them all. The servers
// run in process groups of their own (test/support/opencode-process.ts), out of reach of the
// terminal's Ctrl-C, and the test support's own exit hook does not run on a signal: without this a
// stopped bench left its server running. Also times the bench's sections.

import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

type Stopper = () => Promise<void>;

const live = new Map<object, Stopper>();
let stopping: Promise<void> | undefined;

/**
 * Tracks `thing` until its `method` (stop or close) is called, by the bench or by stopAll; the
 * method is wrapped so it runs at most once whoever calls it.
 */
export function track<T extends object, K extends keyof T & string>(thing: T, method: K): T {
  const original = (thing[method] as unknown as Stopper).bind(thing);
  let done: Promise<void> | undefined;
  const once: Stopper = () => {
    done ??= original().finally(() => live.delete(thing));
    return done;
  };
  (thing as Record<string, unknown>)[method] = once;
  live.set(thing, once);
  return thing;
}

/** Stops everything still tracked, each at most once, all at once. */
export function stopAll(): Promise<void> {
  stopping ??= Promise.allSettled([...live.values()].map((stop) => stop())).then(() => {
    stopping = undefined;
  });
  return stopping;
}

/** How many tracked servers and models are still up (a bench's end checks it is 0). */
export const liveCount = () => live.size;

/**
 * Runs a bench entry point: on SIGINT or SIGTERM stops every tracked server and model and exits
 * (130 / 143; a second signal exits at once); on an error stops them, prints it and exits 1. Also
 * when the launcher ends: `kill <pid of npm run bench>` reaches npm, which passes SIGTERM to the
 * shell it started, not to tsx and this process beneath it; so once this process's parent or
 * grandparent changes (they were reparented: a process above ended), it stops as on SIGTERM.
 */
export async function runBench(main: () => Promise<void>): Promise<void> {
  let signalled = false;
  const stopAndExit = (why: string, code: number) => {
    if (signalled) process.exit(code);
    signalled = true;
    console.error(`\n${why}: stopping ${live.size} bench server(s) and model(s)…`);
    void stopAll().finally(() => process.exit(code));
  };
  const onSignal = (signal: NodeJS.Signals) => stopAndExit(signal, signal === 'SIGINT' ? 130 : 143);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const parent = process.ppid;
  const grandparent = parentOf(parent);
  const launcherWatch = setInterval(() => {
    if (process.ppid !== parent || (grandparent !== undefined && parentOf(parent) !== grandparent)) stopAndExit('the process that started the bench ended', 143);
  }, 1000);
  launcherWatch.unref();
  try {
    await main();
  } catch (error) {
    if (signalled) return; // stopAndExit exits once everything is stopped
    console.error(error);
    await stopAll();
    // Plans of the failed part may still be polling or waiting on timers: do not wait for them.
    process.exit(1);
  }
  clearInterval(launcherWatch);
  await stopAll();
}

/** The parent pid of `pid` (Linux /proc), or undefined where it cannot be read. */
function parentOf(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Wall time of named parts of a run, in order, to print where the time went. */
export class SectionClock {
  private readonly started = performance.now();
  /** Each part's wall time and the load average (1 min) when it ended. */
  readonly parts: Array<{ name: string; ms: number; load: number }> = [];

  async time<T>(name: string, part: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await part();
    } finally {
      this.parts.push({ name, ms: performance.now() - t0, load: loadavg()[0]! });
    }
  }

  elapsedMs(): number {
    return performance.now() - this.started;
  }

  /** One line per part that took 0.1 s or more: its seconds and share of the whole. */
  report(): string[] {
    const total = this.elapsedMs();
    return [
      ...this.parts.filter((p) => p.ms >= 100).map((p) => `  ${(p.ms / 1000).toFixed(1).padStart(6)} s  ${((100 * p.ms) / total).toFixed(0).padStart(3)}%  ${p.name} (load ${p.load.toFixed(1)} at its end)`),
      `  ${(total / 1000).toFixed(1).padStart(6)} s  total wall time`,
    ];
  }
}
