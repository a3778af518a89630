import { errorMessage } from '../errors.js';
import type { GitRepository } from './support.js';
import { recoverSlots, resetFreeSlot, slotsToReset } from './worktrees.js';

/** How long a slot given back stays as its step left it: the next step of a sequence, which starts as its step lands, takes it first. */
export const SLOT_RESET_DELAY_MS = 2_000;
/** How long the end of the server waits for free slots to be reset: a few seconds, never a hang. */
export const SLOT_SETTLE_MS = 3_000;

export interface SlotResetsOptions {
  /** How long a slot given back waits before its reset (SLOT_RESET_DELAY_MS unless set). */
  delayMs?: number;
  /** False while a step's slot is opened or its changes land in this process: a reset then waits for another delay, out of their way. */
  quiet?: () => boolean;
  log(level: 'warn', message: string): void;
}

/**
 * When the free slots of this process are reset (resetFreeSlot), off every step's way: a slot given
 * back once it stayed free for `delayMs` (a step that takes it sooner resets it for itself, as before:
 * its own reset writes only the files that differ, so the next step of a sequence pays nothing more;
 * while a step's slot is opened or its changes land, the reset waits one delay more);
 * at start what a process that died left (recoverSlots); when the server ends, every free slot not
 * reset yet, for at most `SLOT_SETTLE_MS`. A failed reset is logged: the slot stays free, and the next
 * step there resets it as any step does.
 */
export class SlotResets {
  private readonly waiting = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly running = new Set<Promise<unknown>>();
  private readonly delayMs: number;
  private ended = false;

  constructor(
    private readonly repo: GitRepository,
    private readonly options: SlotResetsOptions,
  ) {
    this.delayMs = options.delayMs ?? SLOT_RESET_DELAY_MS;
  }

  /** Slots given back just now: each reset once it stayed free for the delay. */
  givenBack(roots: readonly string[]): void {
    if (this.ended) return;
    for (const root of roots) {
      clearTimeout(this.waiting.get(root));
      const timer = setTimeout(() => {
        this.waiting.delete(root);
        if (this.options.quiet && !this.options.quiet()) this.givenBack([root]);
        else this.reset(root);
      }, this.delayMs);
      timer.unref?.(); // never what keeps a process alive
      this.waiting.set(root, timer);
    }
  }

  /** At start: what a process that died left on the slots is taken back, and free slots that hold a step's files are reset after the delay. */
  async recover(): Promise<void> {
    this.givenBack(await recoverSlots(this.repo));
  }

  /**
   * The server ends: every free slot not reset yet is reset now (those waiting for their delay, and any
   * other marked as given back); resolves when they are, or after `timeoutMs`, whichever is first.
   */
  async settle(timeoutMs = SLOT_SETTLE_MS): Promise<void> {
    this.ended = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    const all = (async () => {
      for (const [root, waiting] of this.waiting) {
        clearTimeout(waiting);
        this.reset(root);
      }
      this.waiting.clear();
      const left = await slotsToReset(this.repo).catch((error: unknown) => {
        this.options.log('warn', `The free worktree slots were not looked at before the end: ${errorMessage(error)}`);
        return [];
      });
      left.forEach((root) => this.reset(root));
      await Promise.allSettled([...this.running]);
    })();
    try {
      await Promise.race([all, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private reset(root: string): void {
    const running = resetFreeSlot(this.repo, root).catch((error: unknown) => {
      this.options.log('warn', `The worktree slot ${root} was not reset once free (the next step there resets it): ${errorMessage(error)}`);
    });
    this.running.add(running);
    void running.finally(() => this.running.delete(running));
  }
}
