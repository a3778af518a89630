import type { InspectionEvent } from 'xstate';
import { sourceOf } from '../persistence/journal.js';
import type { JournalWriter } from '../persistence/journal-writer.js';
import { statePath } from '../persistence/plan-envelope.js';

/**
 * Turns a plan's inspection stream (every actor of its system, children included) into what is
 * recorded: the root's events and each actor's new states in the journal, and one `persist` call
 * per synchronous cascade (a child's transition and its parent's reaction are one write), after it.
 */
export class PlanRecorder {
  /** Last state journaled per actor ("plan", "step:s1", …). */
  private readonly states = new Map<string, string>();
  /** The persist queued for the current cascade, resolved once it ran. */
  private queued: Promise<void> | null = null;

  constructor(
    private readonly journal: JournalWriter,
    private readonly persist: () => void,
    private readonly now: () => string,
  ) {}

  /** The `inspect` option of the plan's actor. It runs inside createActor: it must not touch the actor variable. */
  readonly inspect = (event: InspectionEvent): void => {
    const isRoot = event.actorRef.sessionId === event.rootId;
    if (event.type === '@xstate.event' && isRoot) {
      this.journalEvent(event.event as { type: string });
      return;
    }
    if (event.type !== '@xstate.snapshot') return;
    const value = (event.snapshot as { value?: unknown }).value;
    if (value !== undefined) this.journalState(isRoot ? 'plan' : ((event.actorRef as { id?: string }).id ?? event.actorRef.sessionId), value);
    if (this.queued) return;
    this.queued = new Promise((resolve) =>
      queueMicrotask(() => {
        this.queued = null;
        this.persist();
        resolve();
      }),
    );
  };

  /** A cascade happened whose persist has not run yet. */
  get pending(): boolean {
    return this.queued !== null;
  }

  /** Resolves once the cascade seen so far has been handed to the writers. */
  async recorded(): Promise<void> {
    await this.queued;
  }

  private journalState(actor: string, value: unknown) {
    const state = statePath(value);
    if (this.states.get(actor) === state) return;
    this.states.set(actor, state);
    this.journal.queue({ at: this.now(), kind: 'state', actor, state });
  }

  private journalEvent(event: { type: string; [key: string]: unknown }) {
    const { error, ...rest } = event;
    const plain = error === undefined ? rest : { ...rest, error: error instanceof Error ? error.message : String(error) };
    this.journal.queue({ at: this.now(), kind: 'event', source: sourceOf(event), event: plain as { type: string } });
  }
}
