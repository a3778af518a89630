/**
 * Which steps of this process wait for a worktree slot now (every slot held), and who follows them: the
 * step chart's `followSlot`, which shows the wait as its own state. A follower is told at once when the
 * step's wait is known, then at each change. Followers only observe: one that throws is not the step's
 * failure, and it changes nothing for the others.
 */
export class SlotWaits {
  private readonly waiting = new Map<string, boolean>();
  private readonly followers = new Map<string, Set<(waiting: boolean) => void>>();

  /** The step (`plan:step`) waits for a slot (`true`) or holds one (`false`). */
  set(key: string, waiting: boolean): void {
    if (this.waiting.get(key) === waiting) return;
    this.waiting.set(key, waiting);
    for (const listener of this.followers.get(key) ?? []) tell(listener, waiting);
  }

  /** The step's workspace is open (or failed to open): nothing more to tell. */
  clear(key: string): void {
    this.waiting.delete(key);
  }

  follow(key: string, listener: (waiting: boolean) => void): () => void {
    const listeners = this.followers.get(key) ?? new Set();
    this.followers.set(key, listeners.add(listener));
    const now = this.waiting.get(key);
    if (now !== undefined) tell(listener, now);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.followers.get(key) === listeners) this.followers.delete(key);
    };
  }
}

function tell(listener: (waiting: boolean) => void, waiting: boolean): void {
  try {
    listener(waiting);
  } catch {
    // An observer's failure is its own: the step goes on opening its workspace.
  }
}
