import type { Gate } from '../machines/gates.js';
import type { PlanEvent } from '../machines/plan.machine.js';
import { drivePlan, type DriveResult, type GateResolver } from './drive.js';
import type { PlanHost } from './plan-host.js';

/**
 * Follows the plans no tool call follows (those the agenda started): the same drive loop as
 * orca_ask_planner, whose resolver answers a gate only with the configured auto policy and
 * otherwise waits, the plan saved at its gate, until a human answers it elsewhere (/orca-approve,
 * `orca decide`, the dialog of someone who resumes the plan); then it follows the plan on.
 */
export class PlanFollower {
  private readonly following = new Map<string, { controller: AbortController; run: Promise<void> }>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly host: PlanHost,
    /** The auto policy's answer, or null when a human must answer (hitl/resolve.ts autoAnswer). */
    private readonly auto: (gate: Gate) => { event: PlanEvent } | null,
    private readonly log: (level: 'info' | 'warn', message: string) => void,
  ) {}

  isFollowing(planId: string): boolean {
    return this.following.has(planId);
  }

  /**
   * Follow the plan until it reaches an outcome or this follower stops; once per plan. `resolve`
   * answers its gates: by default the auto policy, waiting when it has no answer; the session that
   * started the plan passes one that asks there (hitl/session-gate.ts).
   */
  follow(planId: string, resolve: GateResolver = async (gate, signal) => this.auto(gate) ?? untilAborted(signal)): void {
    if (this.following.has(planId)) return;
    const controller = new AbortController();
    const run: Promise<void> = drivePlan(this.host, planId, resolve, controller.signal)
      .then(
        (result) => this.log('info', `plan ${planId}: followed to ${outcomeWords(result)}`),
        (error: unknown) => {
          if (!controller.signal.aborted) this.log('warn', `plan ${planId}: no longer followed: ${(error as Error)?.message ?? String(error)}`);
        },
      )
      .finally(() => {
        if (this.following.get(planId)?.controller === controller) this.following.delete(planId);
        this.running.delete(run);
      });
    this.following.set(planId, { controller, run });
    this.running.add(run);
  }

  /** Stop following one plan (it stays where it is, saved); resolves once its loop has ended. */
  async unfollow(planId: string): Promise<void> {
    const followed = this.following.get(planId);
    if (!followed) return;
    this.following.delete(planId);
    followed.controller.abort(new Error(`plan ${planId} is no longer followed here`));
    await followed.run;
  }

  /** Stop following every plan (they stay saved where they are); resolves when every loop has ended. */
  async stop(): Promise<void> {
    for (const { controller } of this.following.values()) controller.abort(new Error('Orca is stopping'));
    await Promise.all([...this.running]);
  }
}

/** A gate no policy answers: nothing to say until the gate closes (answered elsewhere) or the follower stops. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

const outcomeWords = (result: DriveResult) => (result.kind === 'outcome' ? result.tag.replace('outcome.', '') : `waiting (${result.reason})`);
