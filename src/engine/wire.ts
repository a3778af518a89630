import { fromPromise } from 'xstate';
import {
  planMachine,
  type ConsultPlannerInput,
  type OpenPlannerSessionInput,
} from '../machines/plan.machine.js';
import { stepMachine, type OpenSessionInput, type RunSpecialistInput } from '../machines/step.machine.js';
import type { PlannerOutput, SpecialistResult } from '../machines/types.js';

/**
 * The side effects the machines invoke, as plain async functions. The OpenCode adapter provides
 * them in the plugin; tests provide fakes. Each gets the actor's AbortSignal (stopped actor =
 * aborted call) and, for steps, the idempotency key plan:step:attempt.
 */
export interface PlanPorts {
  openPlannerSession(input: OpenPlannerSessionInput, signal: AbortSignal): Promise<{ sessionId: string }>;
  consultPlanner(input: ConsultPlannerInput, signal: AbortSignal): Promise<PlannerOutput>;
  openSpecialistSession(input: OpenSessionInput, signal: AbortSignal): Promise<{ sessionId: string }>;
  runSpecialist(input: RunSpecialistInput, signal: AbortSignal): Promise<SpecialistResult>;
}

export function wirePlanMachine(ports: PlanPorts) {
  return planMachine.provide({
    actors: {
      openPlannerSession: fromPromise(({ input, signal }: { input: OpenPlannerSessionInput; signal: AbortSignal }) =>
        ports.openPlannerSession(input, signal),
      ),
      consultPlanner: fromPromise(({ input, signal }: { input: ConsultPlannerInput; signal: AbortSignal }) =>
        ports.consultPlanner(input, signal),
      ),
      step: stepMachine.provide({
        actors: {
          openSpecialistSession: fromPromise(({ input, signal }: { input: OpenSessionInput; signal: AbortSignal }) =>
            ports.openSpecialistSession(input, signal),
          ),
          runSpecialist: fromPromise(({ input, signal }: { input: RunSpecialistInput; signal: AbortSignal }) =>
            ports.runSpecialist(input, signal),
          ),
        },
      }),
    },
  });
}

export type WiredPlanMachine = ReturnType<typeof wirePlanMachine>;
