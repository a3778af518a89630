import { fromCallback, fromPromise } from 'xstate';
import { planMachine } from '../machines/plan.machine.js';
import { stepMachine } from '../machines/step.machine.js';
import type { InterruptedTurn, MergeOutcome, PlannerOutput, PlanVerification, ReviewResult, SpecialistResult, StepDiff, StepWorkspace } from '../machines/types.js';
import type {
  CaptureStepInput,
  ConsultPlannerInput,
  FollowSlotInput,
  MeasureStepInput,
  MergeStepInput,
  OpenPlannerSessionInput,
  OpenSessionInput,
  OpenWorkspaceInput,
  PlanPorts,
  RunFixInput,
  RunReviewInput,
  RunSpecialistInput,
  StepHooksInput,
  VerifyPlanInput,
  WatchIdleInput,
} from '../machines/ports.js';
import type { Turn } from '../machines/turn.js';

type Port<K extends keyof PlanPorts> = PlanPorts[K];
const actor = <I, O>(port: (input: I, signal: AbortSignal) => Promise<O>) =>
  fromPromise(({ input, signal }: { input: I; signal: AbortSignal }) => port(input, signal));

export function wirePlanMachine(ports: PlanPorts) {
  return planMachine.provide({
    actors: {
      openPlannerSession: actor<OpenPlannerSessionInput, Awaited<ReturnType<Port<'openPlannerSession'>>>>(ports.openPlannerSession),
      consultPlanner: actor<ConsultPlannerInput, Turn<PlannerOutput>>(ports.consultPlanner),
      verifyPlan: actor<VerifyPlanInput, Turn<PlanVerification>>(ports.verifyPlan),
      step: stepMachine.provide({
        actors: {
          openSpecialistSession: actor<OpenSessionInput, { sessionId: string }>(ports.openSpecialistSession),
          runSpecialist: actor<RunSpecialistInput, Turn<SpecialistResult | InterruptedTurn>>(ports.runSpecialist),
          runReview: actor<RunReviewInput, Turn<ReviewResult>>(ports.runReview),
          runFix: actor<RunFixInput, Turn<SpecialistResult | InterruptedTurn>>(ports.runFix),
          watchIdle: actor<WatchIdleInput, { idleMs: number }>(ports.watchIdle),
          runStepHooks: actor<StepHooksInput, { failures: string[] }>(ports.runStepHooks),
          openWorkspace: actor<OpenWorkspaceInput, StepWorkspace>(ports.openWorkspace),
          followSlot: fromCallback<{ type: string }, FollowSlotInput>(({ input, sendBack }) =>
            ports.followSlot(input, (waiting) => sendBack({ type: waiting ? 'workspace.waiting' : 'workspace.slot_taken' })),
          ),
          measureStep: actor<MeasureStepInput, StepDiff>(ports.measureStep),
          captureStep: actor<CaptureStepInput, { result: string }>(ports.captureStep),
          mergeStep: actor<MergeStepInput, MergeOutcome>(ports.mergeStep),
        },
      }),
    },
  });
}

export type WiredPlanMachine = ReturnType<typeof wirePlanMachine>;

