import type { AnyActorRef } from 'xstate';
import type { PlanSnapshot } from '../machines/gates.js';
import type { StepContext } from '../machines/step.machine.js';

/**
 * How a plan's file is written: `now`, synchronously and durably (temp file, fsync, rename; a
 * write behind still pending is older and dropped); `now-unsynced`, synchronously without fsync,
 * the same text made durable behind; `behind`, off the dispatch path, one write in flight per plan,
 * made from the newest state when it starts; `null`, not at all.
 */
export type SnapshotWrite = 'now' | 'now-unsynced' | 'behind' | null;

/**
 * The plan host's write policy: which write of a plan's file each moment of the plan calls for.
 * The writers (persistence/snapshot-writer.ts, journal-writer.ts) do the writing; this decides when.
 *
 * The rule: a plan's file follows every change of its chart (an event and all it causes), written
 * behind, so that recording a result never waits for the disk; it is written at once only where
 * someone may read it before a write behind would land:
 * - a new plan's first file, so that the plan is on disk when its creation returns;
 * - a finished plan's last file, since another process may read or resume it once it is released;
 * - a plan released by this process (Esc, the end of the server) whose file may lag it, since the
 *   process may exit right after;
 * - the id of a new session that a restart could not find without it, before the prompt in it is
 *   sent: without fsync (safe when the process crashes, if not when the machine loses power),
 *   its durable copy following behind.
 *   Only a step's session in a plan with no caller session is one: a step's session is otherwise
 *   a child of the caller's session and carries its idempotency key in its metadata, so a restart
 *   that lost its id finds it among the caller's children and reuses it, and a planner turn is
 *   simply asked again. Writing the whole file at every dispatch for those would cost every step a
 *   synchronous write that grows with the plan.
 * Around that: a write the store refuses stops the plan in this process, and nothing of a plan
 * being released is recorded any more (its stopped snapshot must not replace its last good one).
 * The journal of a change is appended right after the change, and at once when the plan is
 * released. The index and the observers hear of a change once its write is queued, never before.
 *
 * One per live plan: it remembers which sessions the plan's file already holds.
 */
export class WritePolicy {
  private readonly sessions = new Set<string>();

  /** A plan restored from its file: the sessions it holds are on disk already. */
  restored(snapshot: PlanSnapshot): void {
    this.unfindableSessionOpened(snapshot);
  }

  /** After a cascade of changes. `written`: whether this process has written the plan's file yet. */
  afterChange(snapshot: PlanSnapshot, { written }: { written: boolean }): SnapshotWrite {
    if (!written || snapshot.status === 'done') return 'now';
    return this.unfindableSessionOpened(snapshot) ? 'now-unsynced' : 'behind';
  }

  /** A caller wants the file to be the plan as it is now (a new plan's first file, a reader that shows it). */
  flush(): SnapshotWrite {
    return 'now';
  }

  /**
   * The plan's actor is about to stop here. `write` is false when the file must keep its last good
   * state (the write was refused, the snapshot did not restore); `fileMayLag` when a write behind is
   * still pending or in flight, or a cascade is not yet handed to the writers.
   */
  atRelease({ write, fileMayLag }: { write: boolean; fileMayLag: boolean }): SnapshotWrite {
    return write && fileMayLag ? 'now' : null;
  }

  /** Whether a session opened since the last change that a restart could not find; remembers the sessions seen. */
  private unfindableSessionOpened(snapshot: PlanSnapshot): boolean {
    let opened = false;
    for (const { id, findable } of sessionsOf(snapshot)) {
      if (this.sessions.has(id)) continue;
      this.sessions.add(id);
      if (!findable) opened = true;
    }
    return opened;
  }
}

/**
 * The sessions a plan's snapshot holds (the planner's, each running step's specialist and reviewer
 * sessions), and whether a restart can find each without its id: the planner's always (its turn is
 * asked again), a step's when it has a parent session to be found among the children of.
 */
export function sessionsOf(snapshot: PlanSnapshot): Array<{ id: string; findable: boolean }> {
  const sessions: Array<{ id: string; findable: boolean }> = [];
  if (snapshot.context.planner_session_id) sessions.push({ id: snapshot.context.planner_session_id, findable: true });
  for (const child of Object.values(snapshot.children) as Array<AnyActorRef | undefined>) {
    // Children are also the plan's invoked promises, whose snapshots have no context.
    const context = child?.getSnapshot()?.context as Partial<Pick<StepContext, 'sessionId' | 'parentSessionId' | 'review'>> | undefined;
    const findable = typeof context?.parentSessionId === 'string';
    for (const id of [context?.sessionId, context?.review?.session_id]) if (typeof id === 'string') sessions.push({ id, findable });
  }
  return sessions;
}
