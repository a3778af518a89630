import type { PlanFile } from '../persistence/plan-file.js';

/** How many steps are in each state, and which are running now. */
export interface Progress {
  total: number;
  completed: number;
  running: string[];
  /** Failed steps waiting for Retry / Replan / Stop. */
  awaiting_decision: string[];
  stopped: number;
  pending: number;
}

export function progressOf(file: PlanFile): Progress {
  const ids = (status: string) => file.steps.filter((s) => s.status === status).map((s) => s.id);
  return {
    total: file.steps.length,
    completed: ids('completed').length,
    running: ids('running'),
    awaiting_decision: ids('awaiting_decision'),
    stopped: ids('stopped').length,
    pending: ids('pending').length,
  };
}
