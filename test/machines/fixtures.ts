import { fromCallback, fromPromise } from 'xstate';
import { planMachine } from '../../src/machines/plan.machine.js';
import { stepMachine } from '../../src/machines/step.machine.js';
import type { PlannerOutput, StepRecord } from '../../src/machines/types.js';
import type { Usage } from '../../src/machines/usage.js';
import { ONE_TURN, turn } from '../support/turns.js';

/** Invoked actors that never settle: tests drive invoke outcomes with synthetic done/error events. */
const pending = fromPromise(() => new Promise<never>(() => {}));
/** A callback actor that never reports: tests send its events (`workspace.waiting`, …) themselves. */
const quiet = fromCallback(() => () => {});
const silent = () => {};

export const idleStepMachine = stepMachine.provide({
  actors: {
    openSpecialistSession: pending as never,
    runSpecialist: pending as never,
    runReview: pending as never,
    runFix: pending as never,
    watchIdle: pending as never,
    runStepHooks: pending as never,
    openWorkspace: pending as never,
    followSlot: quiet as never,
    measureStep: pending as never,
    captureStep: pending as never,
    mergeStep: pending as never,
  },
});

/** The step machine alone: no parent to notify. */
export const standaloneStepMachine = idleStepMachine.provide({
  actions: {
    reportUsage: silent,
    notifyDispatched: silent,
    notifyTurn: silent,
    notifyFailed: silent,
    notifyInterrupted: silent,
    notifyCompleted: silent,
    notifyLanded: silent,
    notifyReplan: silent,
    notifyStop: silent,
    notifyMergeConflict: silent,
  },
});

export const idlePlanMachine = planMachine.provide({
  actors: { openPlannerSession: pending as never, consultPlanner: pending as never, step: idleStepMachine },
});

/** The invokes that run model turns: they resolve with `{ value, usage }` (machines/turn.ts). */
const TURN_ACTORS = new Set(['consultPlanner', 'revisePlan', 'runSpecialist', 'runReview', 'runFix', 'verifyPlan']);
/** An invoke's outcome; a turn's value is wrapped with what it cost (one test turn unless `cost` says otherwise). */
export const done = (id: string, output: unknown, cost: Usage = ONE_TURN) => ({
  type: `xstate.done.actor.${id}`,
  output: TURN_ACTORS.has(id) ? turn(output, cost) : output,
});
export const fail = (id: string, message = 'boom') => ({ type: `xstate.error.actor.${id}`, error: new Error(message) });
export const by = { channel: 'tool' as const, at: '2026-01-01T00:00:00.000Z' };

export const twoStepPlan: PlannerOutput = {
  type: 'plan',
  goal: 'Add a greeting',
  steps: [
    { id: 's1', agent: 'coder', description: 'write hello.ts' },
    { id: 's2', agent: 'tester', description: 'test hello.ts', depends_on: ['s1'] },
  ],
  assumptions: ['node'],
  risks: [],
  verification: ['tests pass'],
};
export const question: PlannerOutput = {
  type: 'question',
  questions: [{ header: 'Style', question: 'Formal or casual?', options: [{ label: 'Formal' }, { label: 'Casual' }] }],
};
export const answer: PlannerOutput = { type: 'answer', content: 'It is 42.' };

export const stepKey = (steps: StepRecord[]) =>
  steps.map((s) => `${s.id}:${s.status}:${s.failures.length}${s.breaker ? ':B' : ''}`).join(',');
