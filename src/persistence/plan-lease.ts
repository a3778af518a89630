import lockfile from 'proper-lockfile';
import { OrcaError } from '../errors.js';

/**
 * One writer per plan across processes (two OpenCode servers on one project): a plan's actor
 * runs only while this process holds the lock on its file. proper-lockfile keeps the lock fresh
 * and treats one not refreshed for `staleMs` as abandoned (a killed process), so it is taken over.
 */
export class PlanLeaseError extends OrcaError {
  override name = 'PlanLeaseError';
  constructor(readonly planId: string) {
    super(
      `Plan ${planId} is being run by another OpenCode process on this project. ` +
        'Continue it there, or stop that process (its lease expires seconds after it dies).',
    );
  }
}

export const LEASE_STALE_MS = 5_000;

export type Release = () => void;

export function acquireLease(planFile: string, planId: string, onLost: (error: Error) => void, staleMs = LEASE_STALE_MS): Release {
  try {
    return lockfile.lockSync(planFile, {
      realpath: false, // the plan file may not exist yet when a plan is created
      stale: staleMs,
      update: staleMs / 2,
      onCompromised: onLost,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new PlanLeaseError(planId);
    throw error;
  }
}

/** Whether a live process holds the plan's lease (a fresh lock dir beside its file): read-only, never takes it. */
export function leaseHeld(planFile: string, staleMs = LEASE_STALE_MS): boolean {
  try {
    return lockfile.checkSync(planFile, { realpath: false, stale: staleMs });
  } catch {
    return false; // no plan file, or no lock dir to read: nobody holds it
  }
}
