import { quote } from '../text/quote.js';
import { OrcaError } from '../errors.js';

/** Errors of the plan store. Each says what was wrong and what to do. */

export class InvalidPlanIdError extends OrcaError {
  override name = 'InvalidPlanIdError';
  constructor(readonly input: unknown) {
    super(
      `Invalid plan_id ${quote(input)}: expected "plan_" followed by 26 ULID characters ` +
        `(for example plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9), as listed by orca_list_plans.`,
    );
  }
}

export class PlanNotFoundError extends OrcaError {
  override name = 'PlanNotFoundError';
  constructor(readonly planId: string) {
    super(`Plan ${planId} does not exist: orca_list_plans lists the plans of this project.`);
  }
}

/** A plan file that could not be loaded; it has been moved to the quarantine folder. */
export class QuarantinedPlanError extends OrcaError {
  override name = 'QuarantinedPlanError';
  constructor(
    readonly planId: string,
    readonly reason: string,
    readonly quarantinedTo: string,
  ) {
    super(`Plan ${planId} could not be loaded (${reason}); the file was moved to ${quarantinedTo}.`);
  }
}

/** A plan file the plugin was about to write that its own loader would quarantine: refused, nothing written. */
export class InvalidPlanFileError extends OrcaError {
  override name = 'InvalidPlanFileError';
  constructor(
    readonly planId: string,
    readonly reason: string,
  ) {
    super(`Plan ${planId} was not written: ${reason}. The file on disk keeps its last valid state.`);
  }
}
