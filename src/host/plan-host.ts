import { ensureStateDir } from '../persistence/state-dir.js';
import { createActor, waitFor, type Actor, type InspectionEvent } from 'xstate';
import { z } from 'zod';
import { acquireLease, LEASE_STALE_MS, leaseHeld, PlanLeaseError, type Release } from '../persistence/plan-lease.js';
import type { PlanEvent, PlanInput } from '../machines/plan.machine.js';
import type { PlanPolicy } from '../machines/types.js';
import { QuarantinedPlanError } from '../persistence/errors.js';
import type { PlanSnapshot } from '../machines/gates.js';
import { takeDecisions } from '../persistence/inbox.js';
import { inFlightKeys } from '../persistence/in-flight.js';
import { createPlanIndex, summarizeLive, type PlanIndex } from '../persistence/plan-index.js';
import { newPlanId, parsePlanId } from '../persistence/plan-id.js';
import type { PlanStore } from '../persistence/plan-store.js';
import { loadSummaries } from '../persistence/summary-cache.js';
import { quote } from '../text/quote.js';
import { guarded, PlanObservers, type PlanObserver } from './observers.js';
import { PlanWrites, type PlanWritesOptions, type WrittenChange } from './plan-writes.js';
import { wirePlanMachine, type WiredPlanMachine } from './wire.js';
import { type PlanPorts } from '../machines/ports.js';
import { errorMessage, OrcaError } from '../errors.js';

export type PlanActor = Actor<WiredPlanMachine>;
/** The wired machine's snapshot is the plan machine's: one type, declared beside the gates that read it. */
export type { PlanSnapshot };

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
  releaseLease: Release;
  /** Its file and journal, written when the write policy says (write-policy.ts). */
  writes: PlanWrites;
}

/** What a new plan needs; tools parse their arguments first, this is the host's own guard. */
const planRequest = z.object({ message: z.string().regex(/\S/), callerSessionId: z.string().nullish() });

export class InvalidPlanRequestError extends OrcaError {
  override name = 'InvalidPlanRequestError';
}

/**
 * Owns the live plan actors of one project: creates and restores them (quarantining what does not
 * restore), holds each plan's lease, applies decisions left in its inbox, and hands each cascade to
 * the plan's writes (plan-writes.ts; when each write happens is write-policy.ts). It decides
 * nothing: callers send events and read snapshots. Observers hear of each change after its write is queued.
 */
export class PlanHost {
  readonly index: PlanIndex = createPlanIndex();
  private readonly machine: WiredPlanMachine;
  private readonly live = new Map<string, LivePlan>();
  private readonly observers: PlanObservers;
  /** Writes of released plans still settling: dispose waits for them. */
  private readonly settling = new Set<Promise<void>>();
  /** Why a plan was stopped in this process (its file could not be written, its lease was lost). */
  private readonly failures = new Map<string, Error>();
  /** Idempotency keys of the side effects in flight in the snapshots this host restored. */
  private readonly restoredInFlight = new Set<string>();
  private readonly inspect: ((event: InspectionEvent) => void) | undefined;
  private readonly indexUpsert: PlanIndex['trigger']['upsert'];

  constructor(private readonly options: PlanHostOptions) {
    this.machine = wirePlanMachine(options.ports);
    const log = (level: 'warn' | 'error', message: string) => this.log(level, message);
    this.observers = new PlanObservers(log);
    this.inspect = options.inspect ? guarded('the inspector', options.inspect, log) : undefined;
    // Listeners of the index run inside its update: one that throws must not stop the write path.
    this.indexUpsert = guarded('a plan index listener', (event) => this.index.trigger.upsert(event), log);
  }

  private now() {
    return (this.options.now?.() ?? new Date()).toISOString();
  }

  private log(level: 'info' | 'warn' | 'error', message: string) {
    this.options.log?.(level, message);
  }

  /** Rebuild the index from disk. Files that do not validate are quarantined and reported. */
  loadIndex(): QuarantinedPlanError[] {
    const swept = this.options.store.sweepTemps();
    if (swept.length > 0) this.log('info', `removed ${swept.length} temp file(s) of plan writes that never finished`);
    const { summaries, problems } = loadSummaries(this.options.store, (level, message) => this.log(level, message));
    for (const problem of problems) this.log('warn', problem.message);
    this.index.trigger.reset({ summaries });
    return problems;
  }

  /** Hear of every recorded change of a plan, after its write is queued; an observer that throws is logged once and skipped. */
  observe(name: string, observer: PlanObserver): () => void {
    return this.observers.add(name, observer);
  }

  /** A new plan; its first file is on disk when this returns (or it throws, and nothing runs). */
  create(input: Omit<PlanInput, 'planId' | 'concurrency' | 'maxAttempts' | 'policy'>): PlanActor {
    const request = planRequest.safeParse(input);
    if (!request.success) {
      throw new InvalidPlanRequestError(`A plan needs the user's message as a non-empty string, got ${quote(input?.message)}.`);
    }
    const planId = newPlanId();
    const actor = this.start(planId, this.now(), {
      input: {
        ...input,
        planId,
        ...(this.options.concurrency ? { concurrency: this.options.concurrency } : {}),
        ...(this.options.maxAttempts ? { maxAttempts: this.options.maxAttempts } : {}),
        ...(this.options.policy ? { policy: this.options.policy } : {}),
      },
    });
    this.flush(planId);
    return actor;
  }

  /** The live actor of a plan, restored from its file if it is not running in this process. */
  open(planId: string): PlanActor {
    parsePlanId(planId);
    const live = this.live.get(planId);
    if (live) return live.actor;
    const file = this.options.store.load(planId);
    this.failures.delete(planId);
    // Before start: the restored invokes call their ports at once.
    for (const key of inFlightKeys(file.snapshot)) this.restoredInFlight.add(key);
    let failure: unknown;
    const actor = this.start(
      planId,
      file.created_at,
      { snapshot: file.snapshot as never },
      (error) => {
        failure = error;
      },
      file.undos ? { undos: file.undos } : undefined,
    );
    if (failure !== undefined || actor.getSnapshot().status === 'error') {
      void this.release(planId, { write: false });
      const reason = `snapshot does not restore: ${(failure as Error)?.message ?? 'actor error'}`;
      this.index.trigger.remove({ planId });
      throw this.options.store.quarantine(planId, reason);
    }
    this.live.get(planId)!.writes.restored();
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
      this.log('warn', `plan ${planId}: ignored unreadable decision ${file}: ${reason}`),
    )) {
      const before = live.actor.getSnapshot();
      live.actor.send(event as PlanEvent);
      if (live.actor.getSnapshot() === before) {
        this.log('warn', `plan ${planId}: decision ${event.type} from the inbox no longer applies; dropped`);
      } else this.log('info', `plan ${planId}: applied ${event.type} from the inbox`);
    }
  }

  /** Poll the inboxes of the live plans; returns the function that stops polling. */
  pollInboxes(intervalMs = 1_000): () => void {
    const timer = setInterval(() => {
      for (const planId of this.live.keys()) {
        // In a timer a throw would end the process: one unreadable inbox must not stop the others.
        try {
          this.applyInbox(planId);
        } catch (error) {
          this.log('error', `plan ${planId}: reading its inbox failed: ${errorMessage(error)}`);
        }
      }
    }, intervalMs);
    timer.unref?.();
    return () => clearInterval(timer);
  }

  isLive(planId: string) {
    return this.live.has(planId);
  }

  /** Whether any process runs the plan now: this one, or another holding its lease. Read-only. */
  isHeld(planId: string): boolean {
    return this.live.has(planId) || leaseHeld(this.options.store.pathOf(planId));
  }

  send(planId: string, event: PlanEvent): PlanSnapshot {
    const actor = this.open(planId);
    actor.send(event);
    return actor.getSnapshot();
  }

  /** Wait until the plan's snapshot satisfies `predicate`; rejects when `signal` aborts or the plan is stopped here. */
  async waitFor(planId: string, predicate: (s: PlanSnapshot) => boolean, signal?: AbortSignal) {
    const actor = this.open(planId);
    const { writes } = this.live.get(planId)!;
    let snapshot: PlanSnapshot;
    try {
      snapshot = await waitFor(actor, predicate, { timeout: Infinity, ...(signal ? { signal } : {}) });
      // The state is only reached once it is recorded: a refused write stops the plan instead.
      await writes.recorded();
      this.checkRecorded(planId);
    } catch (error) {
      throw this.failures.get(planId) ?? error;
    }
    const failure = this.failures.get(planId);
    if (failure) throw failure;
    return snapshot;
  }

  /**
   * Stop a plan's actor in this process; its file keeps the last persisted state (Esc, dispose).
   * A file that may lag the plan is written at once first, unless `write` is false (the write
   * policy, write-policy.ts); resolves (never rejects) when every write of the plan has settled.
   */
  release(planId: string, { write = true }: { write?: boolean } = {}): Promise<void> {
    const live = this.live.get(planId);
    if (!live) return Promise.resolve();
    try {
      live.writes.close(write);
    } catch (error) {
      this.log('error', `plan ${planId}: its last state could not be written: ${errorMessage(error)}`);
    }
    this.live.delete(planId);
    live.actor.stop();
    live.writes.flushJournal();
    try {
      live.releaseLease();
    } catch (error) {
      this.log('warn', `plan ${planId}: releasing its lease failed: ${errorMessage(error)}`);
    }
    const settled = live.writes.settled();
    this.settling.add(settled);
    return settled.finally(() => this.settling.delete(settled));
  }

  /** Release every plan; resolves when nothing of theirs is still being written. */
  async dispose(): Promise<void> {
    await Promise.all([...this.live.keys()].map((id) => this.release(id)));
    await Promise.all([...this.settling]);
  }

  /** Write the plan's file now, synchronously (an older write still in flight will not replace it); a refusal stops the plan and throws. */
  flush(planId: string) {
    const live = this.live.get(planId);
    if (!live) return;
    let change: WrittenChange | null;
    try {
      change = live.writes.record('flush');
    } catch (error) {
      this.failWrite(planId, error);
      throw error;
    }
    this.recorded(planId, change);
  }

  /** The write behind of what a waiter saw, made and checked now: a refusal stops the plan (and throws) here, not later. */
  private checkRecorded(planId: string) {
    const live = this.live.get(planId);
    if (!live) return;
    try {
      live.writes.checkPending();
    } catch (error) {
      this.failWrite(planId, error);
      throw error;
    }
  }

  /** Resolves once every write of the plan's file started so far has reached the disk. */
  async settled(planId: string): Promise<void> {
    await this.live.get(planId)?.writes.settled();
  }

  /** After each cascade (PlanRecorder calls it in a microtask): never throws, a refused write stops the plan. */
  private persist(planId: string) {
    const live = this.live.get(planId);
    if (!live) return;
    let change: WrittenChange | null;
    try {
      change = live.writes.record('change');
    } catch (error) {
      this.failWrite(planId, error);
      return;
    }
    this.recorded(planId, change);
  }

  /** The index and the observers learn of a change once its write is queued (neither can fail the write); a finished plan is then released. */
  private recorded(planId: string, change: WrittenChange | null) {
    if (!change) return;
    const { view, snapshot } = change;
    const before = this.index.getSnapshot().context.plans[planId];
    const after = summarizeLive(view, snapshot);
    this.indexUpsert({ summary: after });
    this.observers.notify({ planId, before, after, file: view, snapshot });
    if (snapshot.status === 'done') void this.release(planId);
  }

  /** A plan whose file cannot be written is stopped here, loudly: running on without a file would lose it at the next restart. */
  private failWrite(planId: string, error: unknown) {
    const cause = error instanceof Error ? error : new Error(String(error));
    const failure = new Error(
      `Plan ${planId} was stopped in this process because its file could not be written: ${cause.message} ` +
        'Resume it with orca_ask_planner and its plan_id once the cause is fixed.',
    );
    failure.name = 'PlanWriteError';
    this.failures.set(planId, failure);
    this.log('error', failure.message);
    void this.release(planId, { write: false });
  }

  private start(
    planId: string,
    createdAt: string,
    init: { input: PlanInput } | { snapshot: never },
    onError?: (error: unknown) => void,
    carried?: PlanWritesOptions['carried'],
  ): PlanActor {
    // One writer per plan: throws PlanLeaseError when another process runs it.
    ensureStateDir(this.options.store.dir);
    const releaseLease = acquireLease(this.options.store.pathOf(planId), planId, (error) => {
      const failure = new Error(`Plan ${planId} was stopped in this process: its lease was lost (${error.message}).`);
      this.failures.set(planId, failure);
      this.log('error', failure.message);
      void this.release(planId);
    }, this.options.leaseStaleMs);
    const entry: LivePlan = {
      actor: undefined as never,
      releaseLease,
      writes: new PlanWrites({
        store: this.options.store,
        planId,
        createdAt,
        now: () => this.now(),
        actor: () => entry.actor,
        changed: () => this.persist(planId),
        writeFailed: (error) => this.failWrite(planId, error),
        journalFailed: (error) =>
          this.log('error', `plan ${planId}: appending to its journal failed (the plan file is unaffected): ${error.message}`),
        ...(carried ? { carried } : {}),
      }),
    };
    this.live.set(planId, entry);
    const { writes } = entry;
    const actor = createActor(this.machine, {
      ...('input' in init ? { input: init.input } : { snapshot: init.snapshot, input: undefined as never }),
      // Runs for every actor of the plan's system, so child-only transitions are saved too.
      inspect: (event) => {
        this.inspect?.(event);
        writes.inspect(event);
      },
    });
    entry.actor = actor;
    actor.subscribe({
      error: (error) => {
        onError?.(error);
        this.log('error', `plan ${planId}: ${(error as Error)?.message ?? String(error)}`);
      },
    });
    actor.start();
    return actor;
  }
}
