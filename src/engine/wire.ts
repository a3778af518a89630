import { fromPromise } from 'xstate';
import {
  planMachine,
  type ConsultPlannerInput,
  type OpenPlannerSessionInput,
} from '../machines/plan.machine.js';
import {
  stepMachine,
  type OpenSessionInput,
  type RunFixInput,
  type RunReviewInput,
  type RunSpecialistInput,
  type StepHooksInput,
  type WatchIdleInput,
} from '../machines/step.machine.js';
import type { PlannerOutput, ReviewResult, SpecialistResult } from '../machines/types.js';

/**
 * The side effects the machines invoke, as plain async functions. The OpenCode adapter provides
 * them in the plugin; tests provide fakes. Each gets the actor's AbortSignal (stopped actor =
 * aborted call) and, for steps, the idempotency key plan:step:attempt (with :review:N / :fix:N).
 */
export interface PlanPorts {
  openPlannerSession(input: OpenPlannerSessionInput, signal: AbortSignal): Promise<{ sessionId: string }>;
  consultPlanner(input: ConsultPlannerInput, signal: AbortSignal): Promise<PlannerOutput>;
  openSpecialistSession(input: OpenSessionInput, signal: AbortSignal): Promise<{ sessionId: string }>;
  runSpecialist(input: RunSpecialistInput, signal: AbortSignal): Promise<SpecialistResult>;
  /** The reviewer's verdict on a step's work (seed 003 quality gate). */
  runReview(input: RunReviewInput, signal: AbortSignal): Promise<ReviewResult>;
  /** The specialist fixes what the reviewer reported, in its own session. */
  runFix(input: RunFixInput, signal: AbortSignal): Promise<SpecialistResult>;
  /** Resolves once the session has been idle for input.idleMs, after aborting it; never otherwise. */
  watchIdle(input: WatchIdleInput, signal: AbortSignal): Promise<{ idleMs: number }>;
  /** Pre-step hooks reject with the failing hook's output; post-step hooks resolve with their failures. */
  runStepHooks(input: StepHooksInput, signal: AbortSignal): Promise<{ failures: string[] }>;
}

type Port<K extends keyof PlanPorts> = PlanPorts[K];
const actor = <I, O>(port: (input: I, signal: AbortSignal) => Promise<O>) =>
  fromPromise(({ input, signal }: { input: I; signal: AbortSignal }) => port(input, signal));

export function wirePlanMachine(ports: PlanPorts) {
  return planMachine.provide({
    actors: {
      openPlannerSession: actor<OpenPlannerSessionInput, Awaited<ReturnType<Port<'openPlannerSession'>>>>(ports.openPlannerSession),
      consultPlanner: actor<ConsultPlannerInput, PlannerOutput>(ports.consultPlanner),
      step: stepMachine.provide({
        actors: {
          openSpecialistSession: actor<OpenSessionInput, { sessionId: string }>(ports.openSpecialistSession),
          runSpecialist: actor<RunSpecialistInput, SpecialistResult>(ports.runSpecialist),
          runReview: actor<RunReviewInput, ReviewResult>(ports.runReview),
          runFix: actor<RunFixInput, SpecialistResult>(ports.runFix),
          watchIdle: actor<WatchIdleInput, { idleMs: number }>(ports.watchIdle),
          runStepHooks: actor<StepHooksInput, { failures: string[] }>(ports.runStepHooks),
        },
      }),
    },
  });
}

export type WiredPlanMachine = ReturnType<typeof wirePlanMachine>;

/** The ports that talk to planner and specialist sessions (opencode-ports.ts). */
export type SessionPorts = Pick<PlanPorts, 'openPlannerSession' | 'consultPlanner' | 'openSpecialistSession' | 'runSpecialist'>;
/** The quality gate's ports: reviewer, fixer, idle watch, step hooks (quality-ports.ts). */
export type QualityPorts = Omit<PlanPorts, keyof SessionPorts>;

const never = () => new Promise<never>(() => {});
/** Ports whose calls never settle: a replay (or a test) delivers invoke outcomes itself, or none. */
export const idlePlanPorts: PlanPorts = {
  openPlannerSession: never,
  consultPlanner: never,
  openSpecialistSession: never,
  runSpecialist: never,
  runReview: never,
  runFix: never,
  watchIdle: never,
  runStepHooks: never,
};
