/** Who a turn is for: the plan, and for step turns the step, its agent and the attempt. */
export interface TurnLabel {
  readonly planId: string;
  /** The agent that answers: planner, a specialist, the reviewer. */
  readonly agent: string;
  readonly stepId?: string;
  readonly attempt?: number;
  /** What this turn is within the attempt, e.g. `review round 2`, `fix round 1`. */
  readonly round?: string;
}

/**
 * The first line of every turn Orca starts, so a child session says what it is where the user
 * sees it (the TUI shows child sessions as "Subagent (3 of 8)"):
 * `Orca · plan_… · step impl (coder) · attempt 1`, `Orca · plan_… · planner`.
 */
export function turnHeader({ planId, agent, stepId, attempt, round }: TurnLabel): string {
  const parts = ['Orca', planId, stepId === undefined ? agent : `step ${stepId} (${agent})`];
  if (attempt !== undefined) parts.push(`attempt ${attempt}`);
  if (round !== undefined) parts.push(round);
  return parts.join(' · ');
}

/** The attempt number at the end of an idempotency key `plan:step:attempt[:review:N|:fix:N]`. */
export function attemptOfKey(idempotencyKey: string): number | undefined {
  const match = /^[^:]+:[^:]+:(\d+)(?::|$)/.exec(idempotencyKey);
  return match ? Number(match[1]) : undefined;
}

/** A turn's first prompt before its output protocol section: the header line, a blank line, the body. */
export function turnStart(header: string, body: string): string {
  return `${header}\n\n${body.trim()}`;
}
