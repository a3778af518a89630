import type { PlanPorts } from '../../src/machines/ports.js';
import type { PlannerOutput } from '../../src/machines/types.js';
import { idlePlanPorts } from '../../src/machines/ports.js';
import { turn } from './turns.js';

/**
 * Ports that answer at once: the planner proposes `plan` (or what `planner` returns for the n-th
 * message), every specialist succeeds. For host and tool tests that need a plan to run to the end.
 */
export function instantPorts(planner: PlannerOutput | ((message: string, n: number) => PlannerOutput)): PlanPorts {
  let sessions = 0;
  let turns = 0;
  return {
    ...idlePlanPorts,
    openPlannerSession: async () => ({ sessionId: `ses_planner${++sessions}` }),
    consultPlanner: async ({ message }) => turn(typeof planner === 'function' ? planner(message, ++turns) : planner),
    openSpecialistSession: async ({ stepId }) => ({ sessionId: `ses_${stepId}${++sessions}` }),
    runSpecialist: async ({ idempotencyKey }) => turn({ type: 'success', summary: `${idempotencyKey.split(':')[1]} done`, artifacts: [] }),
    runStepHooks: async () => ({ failures: [] }),
    verifyPlan: async ({ verification }) =>
      turn({ passed: true, where: '/project', checks: verification.map((item) => ({ kind: 'turn' as const, name: item, passed: true, output: 'holds' })), changed: [] }),
  };
}
