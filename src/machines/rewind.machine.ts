import { assign, setup } from 'xstate';
import { notProvided } from './not-provided.js';
import { isFinalPlanStatus, type FileChange, type PlanStatus } from './types.js';

/**
 * Taking a plan's landed changes back out of the user's tree, or putting back what an undo took
 * (docs/design.md, "What the user gets at the end"): one request, `orca undo`, `/orca-undo` or the
 * viewer's button. The chart says what may be rewound: a plan that has ended, steps whose landing
 * Orca recorded, never a step without the steps that depend on it and landed after it. Its ports
 * say whether that applies to the tree as it is now (every hunk must, or nothing changes) and
 * change the tree all at once. Without `apply` it only says what it would do.
 */

export const REWIND_MACHINE_VERSION = 1;

/** A step as the rewind reads it, from the plan file. */
export interface RewindStep {
  id: string;
  depends_on: string[];
  /** When its changes landed in the user's tree, and the patch that did it; absent: nothing recorded. */
  landed?: { at: string; patch_path: string | null };
  /** An undo took its changes back and no redo put them back since. */
  undone: boolean;
}

export interface RewindInput {
  planId: string;
  status: PlanStatus;
  steps: RewindStep[];
  /** The steps named (empty: every step of the plan whose changes are in the tree). */
  asked: string[];
  direction: 'undo' | 'redo';
  /** The last undo no redo followed (what a redo puts back): its steps and the patch it applied. */
  lastUndo: { steps: string[]; patch_path: string } | null;
  /** Change the tree; otherwise only say what would change. */
  apply: boolean;
}

/** A hunk that does not apply to the tree as it is now: the file and line changed since it landed. */
export interface RewindClash {
  /** The step whose patch it is (or `undo` for a redo). */
  step: string;
  /** Project-relative. */
  path: string;
  /** Where the lines it needs are in the file now (1-based), when git says. */
  line: number | null;
  /** git's words. */
  detail: string;
}

/** What taking the patches back does to the tree as it is now. */
export interface RewindCheck {
  /** Snapshots (commits) of the tree now and as it would be. */
  from: string;
  to: string;
  files: FileChange[];
  clashes: RewindClash[];
}

export type RewindRefusal =
  | { reason: 'plan_not_ended'; status: PlanStatus }
  | { reason: 'unknown_steps'; steps: string[] }
  /** Orca recorded no landing of these steps (they changed nothing, never landed, or the project has no git). */
  | { reason: 'not_recorded'; steps: string[] }
  | { reason: 'already_undone'; steps: string[] }
  /** Nothing of the plan is in the tree to take back (or, for a redo, no undo to put back). */
  | { reason: 'nothing_to_undo' }
  | { reason: 'nothing_to_redo' }
  /** A step asked for has dependents whose changes landed after its own: `of` names, per dependent, the step it depends on. */
  | { reason: 'dependents'; dependents: Array<{ step: string; of: string }> }
  | { reason: 'changed_since'; clashes: RewindClash[] };

export interface RewindContext extends RewindInput {
  /** The steps it takes back or puts back, newest landing first. */
  chosen: string[];
  /** Their patches, in the order they are taken back. */
  patches: RewindPatch[];
  check: RewindCheck | null;
  refusal: RewindRefusal | null;
  error: string | null;
}

/** A patch to take back, and whose it is (a step's id, or `undo` for what an undo applied). */
export interface RewindPatch {
  step: string;
  path: string;
}

export interface CheckRewindInput {
  planId: string;
  /** Patches to apply in reverse, in this order. */
  patches: RewindPatch[];
}

export interface ApplyRewindInput {
  planId: string;
  direction: RewindInput['direction'];
  steps: string[];
  check: RewindCheck;
}

const byId = (c: RewindContext) => new Map(c.steps.map((s) => [s.id, s]));
const inTree = (s: RewindStep) => Boolean(s.landed) && !s.undone;

/** The steps an undo takes back: those asked for, or every step whose changes are in the tree. */
const undoSelection = (c: RewindContext) => (c.asked.length > 0 ? c.asked : c.steps.filter(inTree).map((s) => s.id));

/** Steps in the tree that depend, directly or through others, on a step taken back and are not taken back with it. */
function dependentsLeft(c: RewindContext): Array<{ step: string; of: string }> {
  const chosen = new Set(undoSelection(c));
  const steps = byId(c);
  const rootOf = (id: string, seen = new Set<string>()): string | undefined => {
    for (const dep of steps.get(id)?.depends_on ?? []) {
      if (chosen.has(dep)) return dep;
      if (seen.has(dep)) continue;
      seen.add(dep);
      const found = rootOf(dep, seen);
      if (found) return found;
    }
    return undefined;
  };
  return c.steps.filter((s) => inTree(s) && !chosen.has(s.id)).flatMap((s) => {
    const of = rootOf(s.id);
    return of ? [{ step: s.id, of }] : [];
  });
}

export const rewindMachine = setup({
  types: {
    context: {} as RewindContext,
    input: {} as RewindInput,
  },
  actors: {
    checkRewind: notProvided<RewindCheck, CheckRewindInput>('checkRewind'),
    applyRewind: notProvided<void, ApplyRewindInput>('applyRewind'),
  },
  guards: {
    /** Only a plan that has ended: a running plan's steps build on what landed. */
    planNotEnded: ({ context }) => !isFinalPlanStatus(context.status),
    unknownSteps: ({ context }) => context.asked.some((id) => !byId(context).has(id)),
    isRedo: ({ context }) => context.direction === 'redo',
    nothingToRedo: ({ context }) => context.lastUndo === null,
    /** A step asked for whose landing was never recorded (or, with none asked, no step in the tree and none undone). */
    notRecorded: ({ context }) =>
      context.asked.length > 0 ? context.asked.some((id) => !byId(context).get(id)?.landed) : !context.steps.some((s) => s.landed),
    alreadyUndone: ({ context }) => context.asked.some((id) => byId(context).get(id)?.undone),
    nothingInTree: ({ context }) => undoSelection(context).length === 0,
    dependentsLeftOut: ({ context }) => dependentsLeft(context).length > 0,
    hasClashes: (_, check: RewindCheck) => check.clashes.length > 0,
    changesNothing: (_, check: RewindCheck) => check.files.length === 0,
    dryRun: ({ context }) => !context.apply,
  },
  actions: {
    refuse: assign({ refusal: (_, refusal: RewindRefusal) => refusal }),
    chooseUndo: assign(({ context }) => {
      const steps = byId(context);
      const chosen = [...undoSelection(context)].sort((a, b) => (steps.get(b)!.landed!.at < steps.get(a)!.landed!.at ? -1 : 1));
      return { chosen, patches: chosen.flatMap((id) => (steps.get(id)!.landed!.patch_path ? [{ step: id, path: steps.get(id)!.landed!.patch_path! }] : [])) };
    }),
    chooseRedo: assign(({ context }) => ({ chosen: context.lastUndo!.steps, patches: [{ step: 'undo', path: context.lastUndo!.patch_path }] })),
    recordCheck: assign({ check: (_, check: RewindCheck) => check }),
    recordError: assign({ error: (_, p: { error: unknown }) => (p.error instanceof Error ? p.error.message : String(p.error)) }),
  },
}).createMachine({
  id: 'rewind',
  context: ({ input }) => ({ ...input, chosen: [], patches: [], check: null, refusal: null, error: null }),
  initial: 'choosing',
  states: {
    choosing: {
      always: [
        { guard: 'planNotEnded', target: 'refused', actions: { type: 'refuse', params: ({ context }) => ({ reason: 'plan_not_ended' as const, status: context.status }) } },
        {
          guard: 'unknownSteps',
          target: 'refused',
          actions: { type: 'refuse', params: ({ context }) => ({ reason: 'unknown_steps' as const, steps: context.asked.filter((id) => !byId(context).has(id)) }) },
        },
        { guard: 'isRedo', target: 'choosing_redo' },
        {
          guard: 'notRecorded',
          target: 'refused',
          actions: { type: 'refuse', params: ({ context }) => ({ reason: 'not_recorded' as const, steps: context.asked.length > 0 ? context.asked.filter((id) => !byId(context).get(id)?.landed) : [] }) },
        },
        {
          guard: 'alreadyUndone',
          target: 'refused',
          actions: { type: 'refuse', params: ({ context }) => ({ reason: 'already_undone' as const, steps: context.asked.filter((id) => byId(context).get(id)?.undone) }) },
        },
        { guard: 'nothingInTree', target: 'refused', actions: { type: 'refuse', params: { reason: 'nothing_to_undo' as const } } },
        { guard: 'dependentsLeftOut', target: 'refused', actions: { type: 'refuse', params: ({ context }) => ({ reason: 'dependents' as const, dependents: dependentsLeft(context) }) } },
        { target: 'checking', actions: 'chooseUndo' },
      ],
    },
    /** A redo puts back the last undo, whole. */
    choosing_redo: {
      always: [
        { guard: 'nothingToRedo', target: 'refused', actions: { type: 'refuse', params: { reason: 'nothing_to_redo' as const } } },
        { target: 'checking', actions: 'chooseRedo' },
      ],
    },
    /** Whether every hunk applies in reverse to the tree as it is now, and what would change. */
    checking: {
      invoke: {
        id: 'checkRewind',
        src: 'checkRewind',
        input: ({ context }) => ({ planId: context.planId, patches: context.patches }),
        onDone: [
          {
            guard: { type: 'hasClashes', params: ({ event }) => event.output },
            target: 'refused',
            actions: [{ type: 'recordCheck', params: ({ event }) => event.output }, { type: 'refuse', params: ({ event }) => ({ reason: 'changed_since' as const, clashes: event.output.clashes }) }],
          },
          {
            guard: { type: 'changesNothing', params: ({ event }) => event.output },
            target: 'refused',
            actions: [{ type: 'recordCheck', params: ({ event }) => event.output }, { type: 'refuse', params: ({ context }) => ({ reason: context.direction === 'redo' ? ('nothing_to_redo' as const) : ('nothing_to_undo' as const) }) }],
          },
          { guard: 'dryRun', target: 'previewed', actions: { type: 'recordCheck', params: ({ event }) => event.output } },
          { target: 'applying', actions: { type: 'recordCheck', params: ({ event }) => event.output } },
        ],
        onError: { target: 'failed', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    /** The tree changes all at once: after a crash it is as before or as after, never between. */
    applying: {
      invoke: {
        id: 'applyRewind',
        src: 'applyRewind',
        input: ({ context }) => ({ planId: context.planId, direction: context.direction, steps: context.chosen, check: context.check! }),
        onDone: { target: 'applied' },
        onError: { target: 'failed', actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) } },
      },
    },
    previewed: { type: 'final' },
    applied: { type: 'final' },
    refused: { type: 'final' },
    failed: { type: 'final' },
  },
  output: ({ context }) => context,
});

export type RewindMachine = typeof rewindMachine;
export type RewindOutcome = { state: 'previewed' | 'applied' | 'refused' | 'failed'; context: RewindContext };
