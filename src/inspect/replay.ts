import { readFileSync } from 'node:fs';
import { createActor, type InspectionEvent } from 'xstate';
import { wirePlanMachine } from '../host/wire.js';
import { idlePlanPorts, type PlanPorts } from '../machines/ports.js';
import type { PlanEvent, PlanInput } from '../machines/plan.machine.js';
import { PlanNotFoundError } from '../persistence/errors.js';
import { readJournal, type JournalEntry } from '../persistence/journal.js';
import { statePath } from '../persistence/plan-envelope.js';
import { parsePlanFileText, PlanStore } from '../persistence/plan-store.js';
import { InspectorError } from '../config/inspector-error.js';
import { nextMacrotask } from './inspector.js';
import { errorMessage } from '../errors.js';

export interface ReplayResult {
  planId: string;
  /** 'journal': replayed from its first event; 'snapshot': the journal has no start (no input), so the saved snapshot is shown. */
  source: 'journal' | 'snapshot';
  /** Journaled events sent to the replayed actor (those after it reached a final state are not). */
  events: number;
  /** Plan states the replay passed through, and the ones the journal recorded (repeats collapsed). */
  path: string[];
  journaledPath: string[];
  replayedState: string;
  /** `state` of the plan file. */
  savedState: string;
  /** The replay ended where the plan file is. */
  matches: boolean;
}

/** Effects that never settle: the replayed plan opens no session and calls no model. */
const idlePorts: PlanPorts = idlePlanPorts;

/**
 * Replay a plan from disk into the inspector without executing anything: a fresh actor of the plan
 * machine (effects idle) receives the journaled events in order, so the inspector shows the path
 * the plan took. Invoke outcomes are sent as the `xstate.done.actor.*` / `xstate.error.actor.*`
 * events they were: the machine looks only at their type. Reads files only (no lease, no
 * quarantine), so a plan running elsewhere is not disturbed. The replayed actor is left running
 * (nothing of it runs) so the inspector keeps showing its last state rather than "stopped".
 */
export async function replayPlan(
  projectDir: string,
  planId: string,
  inspector: { inspect(event: InspectionEvent): void },
): Promise<ReplayResult> {
  const store = PlanStore.forProject(projectDir);
  const file = readPlanFile(store, planId);
  const journal = readJournal(store.journalPathOf(planId));
  const journaledPath = collapse(journal.flatMap((e) => (e.kind === 'state' && e.actor === 'plan' ? [e.state] : [])));
  const machine = wirePlanMachine(idlePorts);
  let failure: unknown;
  const onError = (error: unknown) => (failure = error);

  const startIndex = journal.findIndex((e) => isEvent(e) && e.event.type === 'xstate.init' && e.event.input !== undefined);
  if (startIndex === -1) {
    const actor = createActor(machine, { snapshot: file.snapshot as never, input: undefined as never, inspect: (event) => inspector.inspect(event) });
    actor.subscribe({ error: onError });
    actor.start();
    const state = statePath(actor.getSnapshot().value);
    throwIfFailed(planId, failure);
    return { planId, source: 'snapshot', events: 0, path: [state], journaledPath, replayedState: state, savedState: file.state, matches: state === file.state };
  }

  const start = journal[startIndex] as Extract<JournalEntry, { kind: 'event' }>;
  const actor = createActor(machine, { input: start.event.input as PlanInput, inspect: (event) => inspector.inspect(event) });
  actor.subscribe({ error: onError });
  actor.start();
  const path = [statePath(actor.getSnapshot().value)];
  let events = 0;
  for (const entry of journal.slice(startIndex + 1)) {
    // A restore journals another xstate.init; the replayed actor simply carries on.
    if (!isEvent(entry) || entry.event.type === 'xstate.init') continue;
    // Children report done after the plan reached its final state; a done actor takes no events.
    if (actor.getSnapshot().status !== 'active') break;
    // One event per macrotask: the inspector converts each inspection event in a setTimeout(0),
    // so an actor's registration shows the state it had then, not the final one.
    await nextMacrotask();
    actor.send(entry.event as PlanEvent);
    events++;
    path.push(statePath(actor.getSnapshot().value));
    throwIfFailed(planId, failure);
  }
  await nextMacrotask();
  const replayedState = path.at(-1)!;
  return {
    planId,
    source: 'journal',
    events,
    path: collapse(path),
    journaledPath,
    replayedState,
    savedState: file.state,
    matches: replayedState === file.state,
  };
}

function readPlanFile(store: PlanStore, planId: string) {
  let text: string;
  try {
    text = readFileSync(store.pathOf(planId), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new PlanNotFoundError(planId);
    throw error;
  }
  const parsed = parsePlanFileText(text, planId);
  if (!parsed.ok) throw new InspectorError(`Plan ${planId} cannot be replayed: ${parsed.reason}.`);
  return parsed.file;
}

const isEvent = (entry: JournalEntry): entry is Extract<JournalEntry, { kind: 'event' }> => entry.kind === 'event';

const collapse = (states: string[]) => states.filter((s, i) => s !== states[i - 1]);

function throwIfFailed(planId: string, failure: unknown) {
  if (failure === undefined) return;
  throw new InspectorError(`Plan ${planId} cannot be replayed: the plan machine failed (${errorMessage(failure)}).`);
}
