import { createActor } from 'xstate';
import type { PlanSnapshot } from '../machines/gates.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { wirePlanMachine } from './wire.js';
import { idlePlanPorts } from '../machines/ports.js';
import { OrcaError } from '../errors.js';

export class SnapshotRestoreError extends OrcaError {
  override name = 'SnapshotRestoreError';
}

/**
 * Read a plan's restored snapshot without running it: effects idle (no session, no model), no
 * lease, no write. What the CLI and the plan viewer read gates from, so they see exactly what the
 * machine would take, not a re-derivation from the file's plain fields.
 */
export function readPlanSnapshot<T>(file: PlanFile, read: (snapshot: PlanSnapshot) => T): T {
  let failure: unknown;
  const actor = createActor(wirePlanMachine(idlePlanPorts), { snapshot: file.snapshot as never, input: undefined as never });
  actor.subscribe({ error: (error) => (failure = error) });
  actor.start();
  try {
    if (failure !== undefined || actor.getSnapshot().status === 'error') {
      throw new SnapshotRestoreError(`Plan ${file.plan_id}: its snapshot does not restore (${(failure as Error)?.message ?? 'actor error'}).`);
    }
    return read(actor.getSnapshot() as PlanSnapshot);
  } finally {
    actor.stop();
  }
}
