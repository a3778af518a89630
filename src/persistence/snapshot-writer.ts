import type { PlanFile } from './plan-file.js';
import type { PlanStore } from './plan-store.js';
import { errorMessage } from '../errors.js';

/**
 * One plan's file on disk, made from the plan's current state by `build` (null: nothing to write).
 * `writeBehind` keeps recording off the dispatch path: one write in flight, and the file is made
 * and checked when its write starts, from the newest state, so changes in between cost nothing; an
 * older content never lands over a newer one. `writeNow` writes synchronously (a new plan's first
 * file, a finished plan's last); `writeNowAndBehind` too, without fsync, its durable copy following
 * behind (a new session's id before its prompt). Every write is checked by the store first
 * (InvalidPlanFileError): at once for the synchronous ones, and for a write behind when it starts
 * or when `checkPending` asks (a caller waiting on the state it records).
 */
export class SnapshotWriter {
  /** The write behind still to start: the newest state (made when it starts), or a file already made, checked and serialised. */
  private pending: 'newest' | { file: PlanFile; text: string } | null = null;
  private writing: Promise<void> | null = null;
  /** Writes started, and the newest one that reached the disk. */
  private seq = 0;
  private committed = 0;

  constructor(
    private readonly store: PlanStore,
    private readonly build: () => PlanFile | null,
    /** A write behind that failed (its caller has returned long ago): the owner decides what follows. */
    private readonly onError: (error: Error) => void,
  ) {}

  /** Whether any write of this plan started in this process. */
  get hasWritten(): boolean {
    return this.seq > 0;
  }

  /** Whether the file on disk may lag the plan: a write pending, or the newest one started still in flight. */
  get dirty(): boolean {
    return this.pending !== null || this.committed < this.seq;
  }

  /** The newest state to disk now, durably (a pending write behind is older: dropped). Throws when refused. */
  writeNow(): void {
    const file = this.build();
    if (!file) return;
    this.pending = null;
    const seq = ++this.seq;
    this.store.save(file);
    this.committed = seq;
  }

  /** The newest state written behind: made, checked and written when the write starts. */
  writeBehind(): void {
    this.pending = 'newest';
    this.writing ??= this.drain();
  }

  /** To disk now without fsync, and the same text (made, checked and serialised once) made durable behind. Throws when refused. */
  writeNowAndBehind(): void {
    const file = this.build();
    if (!file) return;
    const seq = ++this.seq;
    const text = this.store.save(file, { fsync: false });
    this.committed = seq;
    this.pending = { file, text };
    this.writing ??= this.drain();
  }

  /** The pending write behind made and checked now (it keeps its place in the queue). Throws when refused. */
  checkPending(): void {
    if (this.pending !== 'newest') return;
    this.pending = this.made();
  }

  /** Resolves once every write started so far has settled (landed, or been dropped for a newer one). */
  async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** The newest state as a checked file and its text; null when there is nothing to write. */
  private made(): { file: PlanFile; text: string } | null {
    const file = this.build();
    return file ? { file, text: this.store.serialize(file) } : null;
  }

  private async drain(): Promise<void> {
    try {
      // Started from the write behind's caller: let the rest of its cascade and its observers run first.
      await Promise.resolve();
      while (this.pending) {
        const next = this.pending === 'newest' ? this.made() : this.pending;
        this.pending = null;
        if (!next) continue;
        const seq = ++this.seq;
        await this.store.saveCheckedAsync(
          next.file,
          () => {
            if (seq < this.committed) return false;
            this.committed = seq;
            return true;
          },
          next.text,
        );
      }
    } catch (error) {
      this.pending = null;
      this.onError(error instanceof Error ? error : new Error(errorMessage(error)));
    } finally {
      this.writing = null;
    }
  }
}
