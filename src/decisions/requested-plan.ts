import { InvalidPlanIdError, PlanNotFoundError, QuarantinedPlanError } from '../persistence/errors.js';
import { isPlanId } from '../persistence/plan-id.js';
import type { PlanFile } from '../persistence/plan-file.js';
import type { PlanStore } from '../persistence/plan-store.js';
import { RefusedError, UsageError } from '../request-errors.js';

/** A plan_id from the command line; a malformed one is a usage error, before any file is touched. */
export function planIdArgument(input: string | undefined, command: string): string {
  if (input === undefined) throw new UsageError(`orca ${command} needs a plan_id (orca plans lists them).`);
  if (!isPlanId(input)) throw new UsageError(new InvalidPlanIdError(input).message.replace('orca_list_plans', 'orca plans'));
  return input;
}

/** Load one plan; a file that fails validation is quarantined exactly as the plugin does. */
export function loadPlan(store: PlanStore, planId: string): PlanFile {
  try {
    return store.load(planId);
  } catch (error) {
    if (error instanceof PlanNotFoundError) throw new RefusedError(`Plan ${planId} does not exist in ${store.dir} (orca plans lists the plans).`);
    if (error instanceof QuarantinedPlanError) throw new RefusedError(error.message);
    throw error;
  }
}
