import type { Actor, InspectionEvent } from 'xstate';
import { openGates, type PlanSnapshot } from '../machines/gates.js';
import { JournalWriter } from '../persistence/journal-writer.js';
import { toPlanFile, toPlanFields } from '../persistence/plan-envelope.js';
import type { PlanFile, PlanFields } from '../persistence/plan-file.js';
import type { PlanStore } from '../persistence/plan-store.js';
import { SnapshotWriter } from '../persistence/snapshot-writer.js';
import { PlanRecorder } from './plan-recorder.js';
import type { WiredPlanMachine } from './wire.js';
import { WritePolicy, type SnapshotWrite } from './write-policy.js';

/** A change handed to the writers: the plan's plain fields as recorded, and the snapshot they were made from. */
export interface WrittenChange {
  view: PlanFields;
  snapshot: PlanSnapshot;
}

export interface PlanWritesOptions {
  store: PlanStore;
  planId: string;
  createdAt: string;
  now: () => string;
  /** The plan's actor, read at each write: it is created after its writes, whose `inspect` it takes. */
  actor: () => Actor<WiredPlanMachine>;
  /** Once per cascade, after it (a microtask): the host hands the change to `record('change')`. */
  changed: () => void;
  /** A write behind the store refused, long after its caller returned: the host decides what follows. */
  writeFailed: (error: Error) => void;
  /** An append to the journal failed: those entries are lost from the journal, never from the plan file. */
  journalFailed: (error: Error) => void;
  /** What the file the plan was restored from holds that its snapshot does not (its undos): written again with it. */
  carried?: Pick<PlanFields, 'undos'>;
}

/**
 * One live plan's writes: its file (SnapshotWriter) and its journal (JournalWriter, fed by
 * PlanRecorder from the actor's inspection stream), each written when the write policy
 * (write-policy.ts) says. A synchronous write the store refuses throws; the host decides what follows.
 */
export class PlanWrites {
  /** The `inspect` option of the plan's actor: journals its events and states, and calls `changed` once per cascade. */
  readonly inspect: (event: InspectionEvent) => void;
  private readonly policy = new WritePolicy();
  private readonly writer: SnapshotWriter;
  private readonly journal: JournalWriter;
  private readonly recorder: PlanRecorder;
  /** Set when the plan is released, so the snapshot of its stopped actor is never written over the good one. */
  private closed = false;

  constructor(private readonly options: PlanWritesOptions) {
    this.writer = new SnapshotWriter(options.store, () => this.file(), options.writeFailed);
    this.journal = new JournalWriter(options.store.journalPathOf(options.planId), options.journalFailed);
    this.recorder = new PlanRecorder(this.journal, options.changed, options.now);
    this.inspect = this.recorder.inspect;
  }

  /** The plan was restored from its file: the sessions in it are on disk already. */
  restored(): void {
    this.policy.restored(this.snapshot());
  }

  /**
   * The plan's change written as the policy asks: after a cascade (`change`), or at a caller's
   * request (`flush`). Null when there is nothing to record (the plan is released, or its actor failed).
   */
  record(moment: 'change' | 'flush'): WrittenChange | null {
    if (this.closed) return null;
    const view = this.view();
    if (!view) return null;
    this.write(moment === 'flush' ? this.policy.flush() : this.policy.afterChange(this.snapshot(), { written: this.writer.hasWritten }));
    return { view, snapshot: this.snapshot() };
  }

  /** Resolves once the cascade seen so far has been handed to `record`. */
  recorded(): Promise<void> {
    return this.recorder.recorded();
  }

  /** The pending write behind made and checked now, for a caller about to report its state. Throws when refused. */
  checkPending(): void {
    if (!this.closed) this.writer.checkPending();
  }

  /**
   * The plan is being released: what the policy asks of a release is written (`write` false: the
   * file keeps its last good state), and nothing is recorded after. Throws when refused, closed all the same.
   */
  close(write: boolean): void {
    if (this.closed) return;
    this.closed = true;
    this.write(this.policy.atRelease({ write, fileMayLag: this.writer.dirty || this.recorder.pending }));
  }

  /** The journal appended now, not in a microtask: a process may exit right after. */
  flushJournal(): void {
    this.journal.flush();
  }

  /** Resolves once every write of the plan's file started so far has settled. */
  settled(): Promise<void> {
    return this.writer.settled();
  }

  private write(write: SnapshotWrite): void {
    if (write === 'now') this.writer.writeNow();
    else if (write === 'now-unsynced') this.writer.writeNowAndBehind();
    else if (write === 'behind') this.writer.writeBehind();
  }

  private snapshot(): PlanSnapshot {
    return this.options.actor().getSnapshot();
  }

  /** The plan's plain fields now (null once its actor failed: nothing to record). */
  private view(): PlanFields | null {
    const snapshot = this.snapshot();
    if (snapshot.status === 'error') return null;
    const times = { created_at: this.options.createdAt, updated_at: this.options.now() };
    return { ...toPlanFields(snapshot, times, openGates(snapshot)[0]?.kind ?? null), ...this.options.carried };
  }

  /** The plan's file now, snapshot included: made only when it is written. */
  private file(): PlanFile | null {
    const view = this.view();
    return view && toPlanFile(view, this.options.actor().getPersistedSnapshot());
  }
}
