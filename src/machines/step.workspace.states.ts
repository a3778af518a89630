import { messageOf, portFailure } from './outcome-params.js';
import { attemptKey, leaveGate, stepSetup, type StepContext } from './step.setup.js';

/**
 * The step chart's workspace states (docs/worktrees.md): its tree opened before its turns, what git
 * measures it changed after each, its changes landed in the user's tree, and the merge gate when
 * they do not apply. The states read the same in step.machine.ts; the chart is unchanged.
 */

/**
 * The step's worktree from the user's tree as it is now (or, in a shared tree, the tree's state before
 * the step). A step that finds every worktree slot held waits for one given back (`waiting_for_slot`),
 * which the inspector and the plan's view show, rather than being taken for a running one.
 */
export const openingWorkspace = stepSetup.createStateConfig({
  initial: 'opening',
  states: {
    /** Taking a slot and resetting it to the step's start (or recording the shared tree's state). */
    opening: { on: { 'workspace.waiting': 'waiting_for_slot' } },
    /** Every slot is held (by other steps, of this plan or another): first come, first served (docs/worktrees.md). */
    waiting_for_slot: { on: { 'workspace.slot_taken': 'opening' } },
  },
  invoke: [
    {
      id: 'followSlot',
      src: 'followSlot',
      input: ({ context }) => ({ planId: context.planId, stepId: context.stepId }),
    },
    {
    id: 'openWorkspace',
    src: 'openWorkspace',
    input: ({ context }) => ({
      idempotencyKey: attemptKey(context),
      planId: context.planId,
      stepId: context.stepId,
      attempt: context.attempt,
      kind: context.policy.workspace === 'worktree' ? ('worktree' as const) : ('shared' as const),
    }),
    onDone: { target: 'preparing', actions: { type: 'recordWorkspace', params: ({ event }) => event.output } },
    onError: { target: 'failed_attempt', actions: { type: 'recordFailure', params: portFailure('workspace') } },
    },
  ],
});

/** What measureStep is asked: the step's tree against its base, the files it declared, and the session whose tools changed it. */
const measureInput = ({ context }: { context: StepContext }) => ({
  planId: context.planId,
  stepId: context.stepId,
  attempt: context.attempt,
  workspace: context.workspace!,
  declared: context.thread.step.files ?? [],
  sessionId: context.sessionId,
});

/** What the step really changed, by git: the reviewer and the human judge this, not the specialist's claim. */
export const measuring = stepSetup.createStateConfig({
  invoke: {
    id: 'measureStep',
    src: 'measureStep',
    input: measureInput,
    onDone: [
      { guard: 'needsReview', target: 'review', actions: { type: 'recordDiff', params: ({ event }) => event.output } },
      { target: 'finishing', actions: { type: 'recordDiff', params: ({ event }) => event.output } },
    ],
    onError: [
      { guard: 'needsReview', target: 'review', actions: { type: 'recordDiffUnavailable', params: messageOf } },
      { target: 'finishing', actions: { type: 'recordDiffUnavailable', params: messageOf } },
    ],
  },
});

/**
 * In the shared tree, nothing waiting for it (no reviewer, no post-step hook): git keeps the step's tree
 * (`capturing`), then the plan is told the step landed, so its dependents start while git makes the diff
 * (`diffing`); the diff follows with step.completed. The tree is kept in the step's context before the
 * plan hears of it: a restart diffs that tree, never one the dependents changed since. A tree git cannot
 * take, or a diff it cannot make, leaves a warning, as in `measuring`.
 */
export const measuringLanded = stepSetup.createStateConfig({
  initial: 'capturing',
  states: {
    capturing: {
      invoke: {
        id: 'captureStep',
        src: 'captureStep',
        input: ({ context }) => ({ planId: context.planId, stepId: context.stepId, attempt: context.attempt, workspace: context.workspace!, sessionId: context.sessionId }),
        onDone: { target: 'diffing', actions: [{ type: 'recordCapture', params: ({ event }) => event.output }, 'notifyLanded'] },
        onError: { target: '#step.completed', actions: { type: 'recordDiffUnavailable', params: messageOf } },
      },
    },
    diffing: {
      invoke: {
        id: 'measureStep',
        src: 'measureStep',
        input: ({ context }) => ({ ...measureInput({ context }), ...(context.captured ? { result: context.captured } : {}) }),
        onDone: { target: '#step.completed', actions: { type: 'recordDiff', params: ({ event }) => event.output } },
        onError: { target: '#step.completed', actions: { type: 'recordDiffUnavailable', params: messageOf } },
      },
    },
  },
});

export const landing = stepSetup.createStateConfig({
  always: [{ guard: 'isolated', target: 'merging' }, { target: 'completed' }],
});

/** The worktree's changes land in the user's tree as uncommitted changes, by git, never by a model. */
export const merging = stepSetup.createStateConfig({
  invoke: {
    id: 'mergeStep',
    src: 'mergeStep',
    input: ({ context }) => ({
      idempotencyKey: `${attemptKey(context)}:merge`,
      planId: context.planId,
      stepId: context.stepId,
      attempt: context.attempt,
      workspace: context.workspace!,
      declared: context.thread.step.files ?? [],
      // Measured after the last turn, and no post-step hook ran in the tree since: that measurement lands.
      ...(context.diff && context.policy.post_hooks.length === 0 && context.diff.base === context.workspace!.base ? { measured: context.diff } : {}),
    }),
    onDone: [
      { guard: { type: 'mergeConflicted', params: ({ event }) => event.output }, target: 'merge_conflict', actions: { type: 'recordMergeClash', params: ({ event }) => event.output } },
      { target: 'completed', actions: [{ type: 'recordMergeClash', params: ({ event }) => event.output }, 'clearMerge'] },
    ],
    onError: { target: 'merge_conflict', actions: { type: 'recordMergeError', params: messageOf } },
  },
});

/** The step's changes did not apply to the user's tree: a human decides. Its worktree is kept meanwhile. */
export const mergeConflict = stepSetup.createStateConfig({
  tags: ['gate.merge'],
  entry: 'notifyMergeConflict',
  on: {
    // Bounded like Retry: the clash counts as a failed attempt, so a policy that keeps choosing it stops at the limit.
    'step.rerun_on_top': {
      guard: 'onTopRemains',
      target: 'preparing',
      actions: { type: 'startOnTop', params: ({ event }) => ({ guidance: event.guidance, on_top_of: event.on_top_of, landed: event.landed }) },
    },
    'step.merge_resolved': { target: 'completed', actions: 'clearMerge' },
    'step.stop': leaveGate['step.stop'],
  },
});
