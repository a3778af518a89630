import { mkdirSync } from 'node:fs';
import { createActor, waitFor, type Actor, type InspectionEvent, type SnapshotFrom } from 'xstate';
import { appendJournal, sourceOf, type JournalEntry } from '../persistence/journal.js';
import { acquireLease, LEASE_STALE_MS, PlanLeaseError, type Release } from '../persistence/plan-lease.js';
import type { PlanEvent, PlanInput } from '../machines/plan.machine.js';
import type { PlanPolicy } from '../machines/types.js';
import { QuarantinedPlanError } from '../persistence/errors.js';
import { openGates } from '../hitl/gates.js';
import { statePath, toPlanFile } from '../persistence/plan-envelope.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { takeDecisions } from '../persistence/inbox.js';
import { inFlightKeys } from '../persistence/in-flight.js';
import { createPlanIndex, summarize, type PlanIndex } from '../persistence/plan-index.js';
import { newPlanId, parsePlanId } from '../persistence/plan-id.js';
import type { PlanStore } from '../persistence/plan-store.js';
import { loadSummaries } from '../persistence/summary-cache.js';
import { wirePlanMachine, type PlanPorts, type WiredPlanMachine } from './wire.js';

export type PlanActor = Actor<WiredPlanMachine>;
export type PlanSnapshot = SnapshotFrom<WiredPlanMachine>;

export interface PlanHostOptions {
  store: PlanStore;
  ports: PlanPorts;
  concurrency?: number;
  maxAttempts?: number;
  /** The quality gate and limits for plans created here (fixed in each plan when it is created). */
  policy?: Partial<PlanPolicy>;
  now?: () => Date;
  /** Receives every inspection event of every plan actor (the Stately inspector, when opted in). */
  inspect?: (event: InspectionEvent) => void;
  /** How long an unrefreshed lease on a plan lasts before another process may take it over. */
  leaseStaleMs?: number;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
}

interface LivePlan {
  actor: PlanActor;
  createdAt: string;
  releaseLease: Release;
  /** Last state journaled per actor ("plan", "step:s1", …). */
  states: Map<string, string>;
  /** Set before a deliberate stop so the stopped snapshot is never written over the good one. */
  releasing: boolean;
  flushQueued: boolean;
  /** Journal entries of the current synchronous cascade, appended in one write after it. */
  journal: JournalEntry[];
  /** Write-behind: the newest plan file not yet handed to a write, whether a write is in flight. */
  pending: PlanFile | null;
  writing: Promise<void> | null;
  /** Sequence of plan-file writes started, and of the newest one that reached the disk. */
  seq: number;
  committed: number;
  /** A session was opened in this cascade: its id goes to disk before the turn in it is awaited. */
  sessionOpened: boolean;
}

/** Invoke results that record a new session id (plan or step): written synchronously (DESIGN: id on disk before the prompt). */
const OPENS_SESSION = /^xstate\.done\.actor\.open(Planner|Specialist|Reviewer)Session$/;

/**
 * Owns the live plan actors of one project: creates and restores them, and writes each plan's
 * file after every macrostep (children included, via the inspection stream). It decides nothing:
 * callers send events and read snapshots.
 */
export class PlanHost {
  readonly index: PlanIndex = createPlanIndex();
  private readonly machine: WiredPlanMachine;
  private readonly live = new Map<string, LivePlan>();
  /** Idempotency keys of the side effects in flight in the snapshots this host restored. */
  private readonly restoredInFlight = new Set<string>();

  constructor(private readonly options: PlanHostOptions) {
    this.machine = wirePlanMachine(options.ports);
  }

  private now() {
    return (this.options.now?.() ?? new Date()).toISOString();
  }

  /** Rebuild the index from disk. Files that do not validate are quarantined and reported. */
  loadIndex(): QuarantinedPlanError[] {
    const swept = this.options.store.sweepTemps();
    if (swept.length > 0) this.options.log?.('info', `removed ${swept.length} temp file(s) of plan writes that never finished`);
    const { summaries, problems } = loadSummaries(this.options.store, (level, message) => this.options.log?.(level, message));
    for (const problem of problems) this.options.log?.('warn', problem.message);
    this.index.trigger.reset({ summaries });
    return problems;
  }

  create(input: Omit<PlanInput, 'planId' | 'concurrency' | 'maxAttempts' | 'policy'>): PlanActor {
    const planId = newPlanId();
    return this.start(planId, this.now(), {
      input: {
        ...input,
        planId,
        ...(this.options.concurrency ? { concurrency: this.options.concurrency } : {}),
        ...(this.options.maxAttempts ? { maxAttempts: this.options.maxAttempts } : {}),
        ...(this.options.policy ? { policy: this.options.policy } : {}),
      },
    });
  }

  /** The live actor of a plan, restored from its file if it is not running in this process. */
  open(planId: string): PlanActor {
    parsePlanId(planId);
    const live = this.live.get(planId);
    if (live) return live.actor;
    const file = this.options.store.load(planId);
    // Before start: the restored invokes call their ports at once.
    for (const key of inFlightKeys(file.snapshot)) this.restoredInFlight.add(key);
    let failure: unknown;
    const actor = this.start(planId, file.created_at, { snapshot: file.snapshot as never }, (error) => {
      failure = error;
    });
    if (failure !== undefined || actor.getSnapshot().status === 'error') {
      this.release(planId);
      const reason = `snapshot does not restore: ${(failure as Error)?.message ?? 'actor error'}`;
      this.index.trigger.remove({ planId });
      throw this.options.store.quarantine(planId, reason);
    }
    this.applyInbox(planId);
    return actor;
  }

  /**
   * Whether the side effect with this idempotency key was in flight in a snapshot this host
   * restored from disk: only then can it have started before (in a process that crashed, or an
   * actor stopped by Esc), and only then do the ports look in OpenCode for what it left. A plan
   * created in this process never pays for those lookups.
   */
  isRecovering(idempotencyKey: string): boolean {
    return this.restoredInFlight.has(idempotencyKey);
  }

  /**
   * Like open, but when another process holds the plan's lease, wait until it is released or goes
   * stale (its holder died, e.g. the server was killed) before giving up with PlanLeaseError.
   */
  async openWhenFree(planId: string, signal?: AbortSignal): Promise<PlanActor> {
    const deadline = Date.now() + (this.options.leaseStaleMs ?? LEASE_STALE_MS) + 3_000;
    for (;;) {
      try {
        return this.open(planId);
      } catch (error) {
        if (!(error instanceof PlanLeaseError) || Date.now() > deadline) throw error;
      }
      signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** Send the decisions other processes left for a live plan (see persistence/inbox.ts). */
  applyInbox(planId: string) {
    const live = this.live.get(planId);
    if (!live) return;
    for (const { event } of takeDecisions(this.options.store.dir, planId, (file, reason) =>
      this.options.log?.('warn', `plan ${planId}: ignored unreadable decision ${file}: ${reason}`),
    )) {
      const before = live.actor.getSnapshot();
      live.actor.send(event as PlanEvent);
      if (live.actor.getSnapshot() === before) {
        this.options.log?.('warn', `plan ${planId}: decision ${event.type} from the inbox no longer applies; dropped`);
      } else this.options.log?.('info', `plan ${planId}: applied ${event.type} from the inbox`);
    }
  }

  /** Poll the inboxes of the live plans; returns the function that stops polling. */
  pollInboxes(intervalMs = 1_000): () => void {
    const timer = setInterval(() => {
      for (const planId of this.live.keys()) this.applyInbox(planId);
    }, intervalMs);
    timer.unref?.();
    return () => clearInterval(timer);
  }

  isLive(planId: string) {
    return this.live.has(planId);
  }

  send(planId: string, event: PlanEvent): PlanSnapshot {
    const actor = this.open(planId);
    actor.send(event);
    return actor.getSnapshot();
  }

  /** Wait until the plan's snapshot satisfies `predicate`; rejects when `signal` aborts. */
  async waitFor(planId: string, predicate: (s: PlanSnapshot) => boolean, signal?: AbortSignal) {
    const actor = this.open(planId);
    return waitFor(actor, predicate, { timeout: Infinity, ...(signal ? { signal } : {}) });
  }

  /** Stop a plan's actor in this process; its file keeps the last persisted state (Esc, dispose). */
  release(planId: string) {
    const live = this.live.get(planId);
    if (!live) return;
    // A write behind still pending or in flight: the newest good snapshot goes to disk now.
    if ((live.pending || live.writing) && !live.releasing) this.writeNow(live);
    live.releasing = true;
    this.live.delete(planId);
    live.actor.stop();
    this.writeJournal(planId, live); // now, not in a microtask: a process may exit right after
    try {
      live.releaseLease();
    } catch (error) {
      this.options.log?.('warn', `plan ${planId}: releasing its lease failed: ${(error as Error).message}`);
    }
  }

  dispose() {
    for (const id of [...this.live.keys()]) this.release(id);
  }

  /** Write the plan's file now, synchronously (an older write still in flight will not replace it). */
  flush(planId: string) {
    const current = this.current(planId);
    if (!current) return;
    const { live, file } = current;
    this.writeNow(live, file);
    if (live.actor.getSnapshot().status === 'done') this.release(planId);
  }

  /** A plan file to disk, synchronously; with `fsync: false` its durable copy is still to be written behind. */
  private writeNow(live: LivePlan, file: PlanFile | null = this.fileOf(live), { fsync = true } = {}) {
    if (!file) return;
    if (fsync) live.pending = null;
    this.options.store.save(file, { fsync });
    live.committed = ++live.seq;
  }

  /**
   * After each cascade: the index now, the file written behind (off the event loop, one write in
   * flight per plan, the newest snapshot wins), so recording a result never waits for an fsync;
   * the exceptions below are written at once.
   */
  private persist(planId: string) {
    const current = this.current(planId);
    if (!current) return;
    const { live, file } = current;
    const opened = live.sessionOpened;
    live.sessionOpened = false;
    // Written at once: a new plan's first file (it exists on disk as soon as it is created) and a
    // finished plan's last (another process may read or resume it).
    if (live.seq === 0 || live.actor.getSnapshot().status === 'done') {
      this.writeNow(live, file);
      if (live.actor.getSnapshot().status === 'done') this.release(planId);
      return;
    }
    // The new session's id reaches the file now, before the prompt in it is sent (safe against a
    // crashed process); the fsynced copy follows behind like every other write.
    if (opened) this.writeNow(live, file, { fsync: false });
    live.pending = file;
    live.writing ??= this.writeBehind(planId, live);
  }

  private async writeBehind(planId: string, live: LivePlan): Promise<void> {
    try {
      while (live.pending) {
        const file = live.pending;
        live.pending = null;
        const seq = ++live.seq;
        await this.options.store.saveAsync(file, () => {
          if (seq < live.committed) return false;
          live.committed = seq;
          return true;
        });
      }
    } catch (error) {
      this.options.log?.('error', `plan ${planId}: writing its file failed: ${(error as Error).message}`);
    } finally {
      live.writing = null;
    }
  }

  /** Resolves once every write of the plan's file started so far has reached the disk. */
  async settled(planId: string): Promise<void> {
    const live = this.live.get(planId);
    while (live?.writing) await live.writing;
  }

  /** The plan file of a live plan's current snapshot, with the index brought up to it; null when there is nothing to write. */
  private current(planId: string): { live: LivePlan; file: PlanFile } | null {
    const live = this.live.get(planId);
    if (!live || live.releasing) return null;
    live.flushQueued = false;
    const file = this.fileOf(live);
    if (!file) return null;
    this.index.trigger.upsert({ summary: summarize(file) });
    return { live, file };
  }

  private fileOf(live: LivePlan): PlanFile | null {
    const snapshot = live.actor.getSnapshot();
    if (snapshot.status === 'error') return null;
    return toPlanFile(
      snapshot,
      live.actor.getPersistedSnapshot(),
      { created_at: live.createdAt, updated_at: this.now() },
      openGates(snapshot)[0]?.kind ?? null,
    );
  }

  /** Journal the state an actor of the plan is in after a macrostep, when it changed. */
  private journalState(planId: string, live: LivePlan, actor: string, value: unknown) {
    const state = statePath(value);
    if (live.states.get(actor) === state) return;
    live.states.set(actor, state);
    this.queueJournal(planId, live, { at: this.now(), kind: 'state', actor, state });
  }

  private journalEvent(planId: string, live: LivePlan, event: { type: string; [key: string]: unknown }) {
    const { error, ...rest } = event;
    const plain = error === undefined ? rest : { ...rest, error: error instanceof Error ? error.message : String(error) };
    this.queueJournal(planId, live, { at: this.now(), kind: 'event', source: sourceOf(event), event: plain as JournalEntry & { type: string } });
  }

  /** Entries of one synchronous cascade go to the journal in one append, in order, right after it. */
  private queueJournal(planId: string, live: LivePlan, entry: JournalEntry) {
    live.journal.push(entry);
    if (live.journal.length === 1) queueMicrotask(() => this.writeJournal(planId, live));
  }

  private writeJournal(planId: string, live: LivePlan) {
    if (live.journal.length === 0) return;
    const entries = live.journal.splice(0, live.journal.length);
    appendJournal(this.options.store.journalPathOf(planId), entries);
  }

  private start(
    planId: string,
    createdAt: string,
    init: { input: PlanInput } | { snapshot: never },
    onError?: (error: unknown) => void,
  ): PlanActor {
    // One writer per plan: throws PlanLeaseError when another process runs it.
    mkdirSync(this.options.store.dir, { recursive: true });
    const releaseLease = acquireLease(this.options.store.pathOf(planId), planId, (error) => {
      this.options.log?.('error', `plan ${planId}: its lease was lost (${error.message}); stopping it here`);
      this.release(planId);
    }, this.options.leaseStaleMs);
    const entry: LivePlan = {
      actor: undefined as never,
      createdAt,
      releaseLease,
      states: new Map(),
      releasing: false,
      flushQueued: false,
      journal: [],
      pending: null,
      writing: null,
      seq: 0,
      committed: 0,
      sessionOpened: false,
    };
    this.live.set(planId, entry);
    const actor = createActor(this.machine, {
      ...('input' in init ? { input: init.input } : { snapshot: init.snapshot, input: undefined as never }),
      // Runs for every actor of the plan's system, so child-only transitions are saved too.
      inspect: (event) => {
        this.options.inspect?.(event);
        if (event.type === '@xstate.event' && OPENS_SESSION.test((event.event as { type: string }).type)) entry.sessionOpened = true;
        if (event.type === '@xstate.event' && event.actorRef.sessionId === event.rootId) {
          this.journalEvent(planId, entry, event.event as { type: string });
          return;
        }
        if (event.type !== '@xstate.snapshot') return;
        const value = (event.snapshot as { value?: unknown }).value;
        if (value !== undefined) {
          const isRoot = event.actorRef.sessionId === event.rootId;
          this.journalState(planId, entry, isRoot ? 'plan' : (event.actorRef as { id?: string }).id ?? event.actorRef.sessionId, value);
        }
        if (entry.flushQueued) return;
        entry.flushQueued = true;
        // One write per synchronous cascade (child transition → parent reaction), after it settles.
        queueMicrotask(() => this.persist(planId));
      },
    });
    entry.actor = actor;
    actor.subscribe({
      error: (error) => {
        onError?.(error);
        this.options.log?.('error', `plan ${planId}: ${(error as Error)?.message ?? String(error)}`);
      },
    });
    actor.start();
    return actor;
  }
}
