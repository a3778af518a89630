import type { PlanFile } from './plan-file.js';
import type { PlanStore } from './plan-store.js';

/**
 * One plan's file on disk. `writeBehind` keeps recording off the dispatch path: one write in
 * flight, the newest pending file wins, and an older content never lands over a newer one.
 * `writeNow` writes synchronously (a new plan's first file, a finished plan's last); `writeNowAndBehind`
 * too, without fsync, its durable copy following behind (a new session's id before its prompt).
 * Every write is checked by the store first (InvalidPlanFileError).
 */
export class SnapshotWriter {
  /** The newest file still to write behind, and its text when it was already checked and serialised. */
  private pending: { file: PlanFile; text?: string } | null = null;
  private writing: Promise<void> | null = null;
  /** Writes started, and the newest one that reached the disk. */
  private seq = 0;
  private committed = 0;

  constructor(
    private readonly store: PlanStore,
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

  /** The file to disk now, durably (a pending write behind is older: dropped). Throws when refused. */
  writeNow(file: PlanFile): void {
    this.pending = null;
    const seq = ++this.seq;
    this.store.save(file);
    this.committed = seq;
  }

  /** Checked now (a refusal throws here), written behind. */
  writeBehind(file: PlanFile): void {
    this.store.check(file);
    this.pending = { file };
    this.writing ??= this.drain();
  }

  /** To disk now without fsync, and the same text (checked and serialised once) made durable behind. Throws when refused. */
  writeNowAndBehind(file: PlanFile): void {
    const seq = ++this.seq;
    const text = this.store.save(file, { fsync: false });
    this.committed = seq;
    this.pending = { file, text };
    this.writing ??= this.drain();
  }

  /** Resolves once every write started so far has settled (landed, or been dropped for a newer one). */
  async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending) {
        const { file, text } = this.pending;
        this.pending = null;
        const seq = ++this.seq;
        const commit = () => {
          if (seq < this.committed) return false;
          this.committed = seq;
          return true;
        };
        await (text === undefined ? this.store.saveCheckedAsync(file, commit) : this.store.saveCheckedAsync(file, commit, text));
      }
    } catch (error) {
      this.pending = null;
      this.onError(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.writing = null;
    }
  }
}
