import type { AnyActorRef, SnapshotFrom } from 'xstate';
import type { PlanEvent, PlanMachine } from './plan.machine.js';
import { verificationItems } from './verification.js';
import { crossedLimits, planUsage, raisedCaps, type BudgetLimit } from './budget.js';
import { diffProposals, type PlanDiff } from './plan-diff.js';
import type { StepContext } from './step.machine.js';
import type { DecisionChannel, DecisionSource, FailingCheck, HitlQuestion, MergeConflict, PlanProposal, PlanVerification, SpecialistId, StepDiff, StepStatus } from './types.js';
import { ZERO_USAGE, type Usage } from './usage.js';

/**
 * The one place that says where a plan waits for a human and what each gate offers. Gates are
 * read from the snapshot's tags; the options are the ones the plan machine accepts now, asked of
 * the machine itself (`snapshot.can`) for a human's channel and for the auto policy. Every
 * channel (dialog, permission prompt, slash command, CLI, auto policy) offers exactly these.
 */

export type PlanSnapshot = SnapshotFrom<PlanMachine>;

export type ApprovalOption = 'Approve' | 'Request Changes' | 'Reject';
export type DeviationOption = 'Retry' | 'Replan' | 'Stop';
export type BudgetOption = 'Continue' | 'Stop';
export type ResumeOption = 'Re-run' | 'Mark done' | 'Stop';
export type MergeOption = 'Run again on top' | 'Resolved by hand' | 'Stop';
export type VerificationOption = 'Replan' | 'Accept as is' | 'Stop';

export const APPROVAL_OPTIONS: readonly ApprovalOption[] = ['Approve', 'Request Changes', 'Reject'];
export const DEVIATION_OPTIONS: readonly DeviationOption[] = ['Retry', 'Replan', 'Stop'];
export const BUDGET_OPTIONS: readonly BudgetOption[] = ['Continue', 'Stop'];
export const RESUME_OPTIONS: readonly ResumeOption[] = ['Re-run', 'Mark done', 'Stop'];
export const MERGE_OPTIONS: readonly MergeOption[] = ['Run again on top', 'Resolved by hand', 'Stop'];
export const VERIFICATION_OPTIONS: readonly VerificationOption[] = ['Replan', 'Accept as is', 'Stop'];

/** Options that need the human's text, and what it is: without it the decision is refused on every channel. */
export const TEXT_NEEDED: Readonly<Record<string, string>> = {
  'Request Changes': 'your guidance for the planner: say what to change',
  'Mark done': "your summary of what the step did (it becomes the step's output)",
};

interface Offered<O extends string> {
  planId: string;
  /** What a human may choose here now (dialog, permission prompt, command, CLI). */
  options: O[];
  /** What the auto policy may choose here now (never Retry past an open breaker or a spent budget). */
  autoOptions: O[];
}

export type Gate =
  | ({
      kind: 'approval';
      proposal: PlanProposal;
      /** What changed against the version the human saw before (null for a first version). */
      changes: PlanDiff | null;
      /** Specialists whose steps get a reviewer round (the plan's policy): the forecast counts them. */
      review_agents: SpecialistId[];
      /** The project's configured checks that failed before the plan (when known by now): said beside the plan. */
      failing_before?: FailingCheck[];
    } & Offered<ApprovalOption>)
  | ({ kind: 'question'; questions: HitlQuestion[] } & Offered<never>)
  | ({
      kind: 'deviation';
      stepId: string;
      agent: string;
      error: string;
      failures: number;
      /** Set when the breaker is open: the auto policy may not retry, a human decides. */
      breaker?: string;
      /** What the failed attempt really changed (git), when measured. */
      diff?: StepDiff;
    } & Offered<DeviationOption>)
  | ({
      kind: 'merge';
      stepId: string;
      agent: string;
      attempt: number;
      /** The files whose change did not apply, with the clashing regions. */
      conflicts: MergeConflict[];
      /** What git said, when more than the clashing files (e.g. the user's tree changed while applying). */
      error?: string;
      /** What the step changed (its patch is at diff.patch_path). */
      diff?: StepDiff;
      /** The step's worktree, kept while the gate is open: where to take its changes from by hand. */
      worktree?: string;
    } & Offered<MergeOption>)
  | ({
      kind: 'budget';
      /** The limits reached: the dispatch cap, the money budget, the token budget (Continue raises these). */
      crossed: BudgetLimit[];
      dispatches: number;
      cap: number;
      /** How many more dispatches Continue allows (policy.max_dispatches). */
      increment: number;
      /** What the plan spent so far (planner, steps, read-only asks). */
      usage: Usage;
      /** The money and token limits now (null: none), and what Continue adds to each (budget.max_cost, budget.max_tokens). */
      cost_cap: number | null;
      token_cap: number | null;
      cost_increment: number | null;
      token_increment: number | null;
      /** What each step spent so far. */
      steps: Array<{ id: string; agent: SpecialistId; status: StepStatus; usage: Usage }>;
      /** The limits Continue sets (only the crossed ones change). */
      after_continue: { cap: number; cost_cap: number | null; token_cap: number | null };
      completed: number;
      total: number;
    } & Offered<BudgetOption>)
  | ({
      kind: 'resume';
      stepId: string;
      agent: string;
      attempt: number;
      /** Which turn was interrupted: the specialist's, or its fix after a review. */
      turn: 'specialist' | 'fix';
      sessionId: string;
      detail: string;
      lastActivityAt?: string;
      /** The files the step declared it would change. */
      files: string[];
    } & Offered<ResumeOption>)
  | ({
      kind: 'verification';
      /** What was carried out in the user's project and what each check said. */
      verification: PlanVerification;
      /** The plan's own verification list, as the planner wrote it. */
      planned: string[];
      /** How many verifications ran (each failure is its own decision). */
      runs: number;
    } & Offered<VerificationOption>);

export type GateKind = Gate['kind'];

/** What a plan waiting at each kind of gate waits for, in words (messages of commands and the CLI). */
export const WAITING_WORDS = {
  approval: 'approval',
  question: "answers to the planner's questions",
  deviation: 'a decision on a failed step',
  budget: 'a decision at the budget gate',
  resume: 'a decision on an interrupted step',
  merge: "a decision on a step's changes that did not apply",
  verification: 'a decision on a verification that failed',
} as const satisfies Record<GateKind, string>;

/** The limits of one pause at the budget gate ("100:0.5:-"): each Continue raises one, so each pause is its own decision. */
export const budgetKey = (gate: Pick<Extract<Gate, { kind: 'budget' }>, 'cap' | 'cost_cap' | 'token_cap'>) =>
  [gate.cap, gate.cost_cap, gate.token_cap].map((n) => n ?? '-').join(':');

/**
 * One decision's identity: the plan, the gate's kind, the step a step's gate is about, and what
 * makes the same gate asked again a new decision (a deviation's failure count, a resume or merge
 * gate's attempt, the budget gate's limits). Two gates open at once never share one (two steps a
 * crash interrupted, two parallel steps whose changes did not apply); the same gate asked again
 * after a restart keeps its. A plan has at most one approval or question gate open, and its answer
 * closes it: plan and kind say which.
 */
export function gateKey(gate: Gate): string {
  switch (gate.kind) {
    case 'deviation':
      return `${gate.planId}:deviation:${gate.stepId}:${gate.failures}`;
    case 'resume':
    case 'merge':
      return `${gate.planId}:${gate.kind}:${gate.stepId}:${gate.attempt}`;
    case 'budget':
      return `${gate.planId}:budget:${budgetKey(gate)}`;
    case 'verification':
      return `${gate.planId}:verification:${gate.runs}`;
    case 'approval':
    case 'question':
      return `${gate.planId}:${gate.kind}`;
  }
}

/** The gates open in a plan, in the order they are asked: the plan's own, the budget gate, then each step's (interrupted or failed). */
export function openGates(snapshot: PlanSnapshot): Gate[] {
  const c = snapshot.context;
  const planId = c.plan_id;
  if (snapshot.hasTag('gate.approval') && c.proposal) {
    const previous = c.revisions?.at(-1);
    const kept = new Set(c.steps.filter((st) => st.status === 'completed').map((st) => st.id));
    return [
      {
        kind: 'approval',
        proposal: c.proposal,
        changes: previous ? diffProposals(previous, c.proposal, kept) : null,
        review_agents: c.policy.review_agents,
        ...(c.failing_before?.length ? { failing_before: c.failing_before } : {}),
        ...offered(snapshot, { kind: 'approval', planId }, APPROVAL_OPTIONS),
      },
    ];
  }
  if (snapshot.hasTag('gate.question') && c.questions) return [{ kind: 'question', planId, questions: c.questions, options: [], autoOptions: [] }];
  if (snapshot.hasTag('gate.verification') && c.verification) {
    return [
      {
        kind: 'verification',
        verification: c.verification,
        planned: verificationItems(c),
        runs: c.verification_runs ?? 1,
        ...offered(snapshot, { kind: 'verification', planId }, VERIFICATION_OPTIONS),
      },
    ];
  }
  const gates: Gate[] = [];
  if (snapshot.hasTag('gate.budget')) {
    gates.push({
      kind: 'budget',
      crossed: crossedLimits(c),
      dispatches: c.dispatches,
      cap: c.dispatch_cap,
      increment: c.policy.max_dispatches,
      usage: planUsage(c),
      cost_cap: c.cost_cap ?? null,
      token_cap: c.token_cap ?? null,
      cost_increment: c.policy.max_cost ?? null,
      token_increment: c.policy.max_tokens ?? null,
      steps: c.steps.map((st) => ({ id: st.id, agent: st.agent, status: st.status, usage: st.usage ?? ZERO_USAGE })),
      after_continue: (({ dispatch_cap, cost_cap, token_cap }) => ({ cap: dispatch_cap, cost_cap: cost_cap ?? null, token_cap: token_cap ?? null }))(
        raisedCaps(c),
      ),
      completed: c.steps.filter((st) => st.status === 'completed').length,
      total: c.steps.length,
      ...offered(snapshot, { kind: 'budget', planId }, BUDGET_OPTIONS),
    });
  }
  for (const child of Object.values(snapshot.children) as Array<AnyActorRef | undefined>) {
    const s = child?.getSnapshot();
    if (s?.hasTag?.('gate.resume')) {
      const stepId = s.context.stepId as string;
      const interrupted = s.context.interrupted as StepContext['interrupted'];
      gates.push({
        kind: 'resume',
        stepId,
        agent: s.context.agent as string,
        attempt: s.context.attempt as number,
        turn: interrupted?.turn ?? 'specialist',
        sessionId: interrupted?.session_id ?? (s.context.sessionId as string | null) ?? '',
        detail: interrupted?.detail ?? 'its turn was in flight when the server stopped',
        ...(interrupted?.last_activity_at ? { lastActivityAt: interrupted.last_activity_at } : {}),
        files: (s.context.thread as StepContext['thread']).step.files ?? [],
        ...offered(snapshot, { kind: 'resume', planId, stepId }, RESUME_OPTIONS),
      });
      continue;
    }
    if (s?.hasTag?.('gate.merge')) {
      const stepId = s.context.stepId as string;
      // Open once the plan has taken step.merge_conflict (the step reports after its own transition).
      if (!c.steps.some((st) => st.id === stepId && st.status === 'awaiting_merge')) continue;
      const context = s.context as StepContext;
      gates.push({
        kind: 'merge',
        stepId,
        agent: context.agent,
        attempt: context.attempt,
        conflicts: context.merge?.conflicts ?? [],
        ...(context.merge?.error ? { error: context.merge.error } : {}),
        ...(context.diff ? { diff: context.diff } : {}),
        ...(context.workspace?.root ? { worktree: context.workspace.root } : {}),
        ...offered(snapshot, { kind: 'merge', planId, stepId }, MERGE_OPTIONS),
      });
      continue;
    }
    if (!s?.hasTag?.('gate.deviation')) continue;
    const stepId = s.context.stepId as string;
    // The step reports its failure to the plan after its own transition (and after what its turn
    // cost): until the plan has taken step.failed, the gate is not open yet.
    if (!c.steps.some((st) => st.id === stepId && st.status === 'awaiting_decision')) continue;
    const failures = s.context.failures as Array<{ error: string }>;
    gates.push({
      kind: 'deviation',
      stepId,
      agent: s.context.agent as string,
      error: failures.at(-1)?.error ?? 'unknown error',
      failures: failures.length,
      ...(s.context.breaker ? { breaker: s.context.breaker as string } : {}),
      ...(s.context.diff ? { diff: s.context.diff as StepDiff } : {}),
      ...offered(snapshot, { kind: 'deviation', planId, stepId }, DEVIATION_OPTIONS),
    });
  }
  return gates;
}

/** The plan event for a choice at a gate; throws for an option the gate does not have. */
export function decisionEvent(
  gate: Pick<Gate, 'kind' | 'planId'> & { stepId?: string },
  choice: { option: string; text?: string; answers?: string[][] },
  source: DecisionSource,
): PlanEvent {
  const trimmed = choice.text?.trim();
  const text = trimmed ? { text: trimmed } : {};
  switch (gate.kind) {
    case 'approval':
      if (choice.option === 'Approve') return { type: 'approval.approve', ...text, ...source };
      if (choice.option === 'Reject') return { type: 'approval.reject', ...text, ...source };
      if (choice.option === 'Request Changes') return { type: 'approval.request_changes', text: trimmed ?? '', ...source };
      break;
    case 'question':
      return { type: 'question.answer', answers: choice.answers ?? [[choice.option]], ...source };
    case 'deviation':
      if (choice.option === 'Retry') return { type: 'deviation.retry', stepId: gate.stepId!, ...text, ...source };
      if (choice.option === 'Replan') return { type: 'deviation.replan', stepId: gate.stepId!, ...text, ...source };
      if (choice.option === 'Stop') return { type: 'deviation.stop', stepId: gate.stepId!, ...text, ...source };
      break;
    case 'budget':
      if (choice.option === 'Continue') return { type: 'budget.continue', ...text, ...source };
      if (choice.option === 'Stop') return { type: 'budget.stop', ...text, ...source };
      break;
    case 'resume':
      if (choice.option === 'Re-run') return { type: 'resume.rerun', stepId: gate.stepId!, ...text, ...source };
      if (choice.option === 'Mark done') return { type: 'resume.mark_done', stepId: gate.stepId!, text: trimmed ?? '', ...source };
      if (choice.option === 'Stop') return { type: 'resume.stop', stepId: gate.stepId!, ...text, ...source };
      break;
    case 'merge':
      if (choice.option === 'Run again on top') return { type: 'merge.rerun', stepId: gate.stepId!, ...text, ...source };
      if (choice.option === 'Resolved by hand') return { type: 'merge.resolved', stepId: gate.stepId!, ...text, ...source };
      if (choice.option === 'Stop') return { type: 'merge.stop', stepId: gate.stepId!, ...text, ...source };
      break;
    case 'verification':
      if (choice.option === 'Replan') return { type: 'verification.replan', ...text, ...source };
      if (choice.option === 'Accept as is') return { type: 'verification.accept', ...text, ...source };
      if (choice.option === 'Stop') return { type: 'verification.stop', ...text, ...source };
      break;
  }
  throw new Error(`"${choice.option}" is not an option at the ${gate.kind} gate of ${gate.planId}.`);
}

/** Each option the machine would take now, from a human and from the auto policy. */
function offered<O extends string>(snapshot: PlanSnapshot, gate: { kind: GateKind; planId: string; stepId?: string }, all: readonly O[]): Offered<O> {
  const accepts = (channel: DecisionChannel) =>
    all.filter((option) =>
      snapshot.can(decisionEvent(gate, { option, text: 'probe' }, { channel, at: new Date(0).toISOString() })),
    );
  return { planId: gate.planId, options: accepts('question'), autoOptions: accepts('auto') };
}
