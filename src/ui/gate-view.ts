import { readPlanSnapshot } from '../host/restore.js';
import { GATE_COMMANDS, type CommandGate } from '../decisions/gate-commands.js';
import { openGates, TEXT_NEEDED, type Gate } from '../machines/gates.js';
import { diffSummary } from '../machines/plan-diff.js';
import type { PlanFile } from '../persistence/plan-file.js';
import { changeSummary, conflictHunks } from '../text/step-diff.js';
import { answersGate, type QueuedDecision } from '../decisions/running-server.js';
import { whereOf } from '../decisions/decide.js';

/**
 * What the plan waits for, with the options a human has there. Each option carries the `orca
 * decide` choice it posts, so a button sends exactly what the CLI would. Read from the plan's
 * restored snapshot, like `orca decide` (machines/gates.ts: one source of gate truth).
 */
export interface GateOptionView {
  label: string;
  /** The `orca decide` choice: approve, changes, reject, retry, replan, continue, rerun, done, ontop, resolved, stop. */
  choice: string;
  /** Request Changes and Mark done cannot be sent without the human's words. */
  needs_text: boolean;
}

export interface GateView {
  kind: Gate['kind'];
  /** The step a deviation, resume or merge gate is about. */
  step_id?: string;
  title: string;
  detail: string[];
  /** At the merge gate: each file whose change did not apply, with its clashing regions (cut: text/step-diff.ts). */
  conflicts?: Array<{ path: string; hunks: string[] }>;
  options: GateOptionView[];
  /** A decision for this very gate posted and not applied yet ("resume.rerun posted …"): its buttons wait. Another step's gate is another gate. */
  queued?: string;
}

export function gatesOf(file: PlanFile, queued: readonly QueuedDecision[] = []): GateView[] {
  if (file.waiting_for === null) return [];
  let gates: Gate[];
  try {
    gates = readPlanSnapshot(file, openGates);
  } catch {
    return []; // a snapshot that does not restore has no gate a button could answer (orca doctor says why)
  }
  return gates.map((gate) => {
    const waiting = queued.find((q) => answersGate(q, gate));
    return { ...viewOf(gate), ...(waiting ? { queued: waiting.words } : {}) };
  });
}

function viewOf(gate: Gate): GateView {
  switch (gate.kind) {
    case 'approval':
      return {
        kind: gate.kind,
        title: 'The plan waits for approval',
        detail: [
          `${gate.proposal.steps.length} step(s) proposed for: ${gate.proposal.goal}`,
          ...(gate.changes ? [`Changes since the version you saw: ${diffSummary(gate.changes).join('; ')}`] : []),
        ],
        options: optionsOf(gate.kind, gate.options),
      };
    case 'budget':
      return {
        kind: gate.kind,
        // Whichever limit it reached: the dispatch cap, the money or the token budget.
        title: `The plan paused${whereOf(gate)}`,
        detail: [`${gate.dispatches} of ${gate.cap} dispatches used; Continue allows ${gate.increment} more.`, `${gate.completed}/${gate.total} steps completed.`],
        options: optionsOf(gate.kind, gate.options),
      };
    case 'deviation':
      return {
        kind: gate.kind,
        step_id: gate.stepId,
        title: `Step ${gate.stepId} (${gate.agent}) failed`,
        detail: [
          `${gate.failures} failed attempt(s); last error: ${gate.error}`,
          ...(gate.breaker ? [gate.breaker] : []),
          ...(gate.diff ? [`The failed attempt changed ${changeSummary(gate.diff)} (the step's changes below).`] : []),
        ],
        options: optionsOf(gate.kind, gate.options),
      };
    case 'merge':
      return {
        kind: gate.kind,
        step_id: gate.stepId,
        title: `Step ${gate.stepId} (${gate.agent}): its changes did not apply to your working tree`,
        detail: [
          `Attempt ${gate.attempt}: ${gate.conflicts.length ? `conflicts in ${gate.conflicts.map((c) => c.path).join(', ')}` : 'git named no conflicting file'}. Your tree is as it was.`,
          ...(gate.error ? [`git: ${gate.error}`] : []),
          ...(gate.diff ? [`The step changed ${changeSummary(gate.diff)}.`] : []),
          `To take its changes by hand, then choose Resolved by hand: its worktree ${gate.worktree ?? '(not kept)'}, its patch ${gate.diff?.patch_path ?? '(not written)'}.`,
        ],
        conflicts: gate.conflicts.map((c) => ({ path: c.path, hunks: conflictHunks(c) })),
        options: optionsOf(gate.kind, gate.options),
      };
    case 'resume':
      return {
        kind: gate.kind,
        step_id: gate.stepId,
        title: `Step ${gate.stepId} (${gate.agent}) was interrupted by a restart`,
        detail: [
          `Attempt ${gate.attempt} left no result to reuse (${gate.detail}); it may already have changed: ${gate.files.join(', ') || 'any file (none declared)'}.`,
          `Session ${gate.sessionId}${gate.lastActivityAt ? `, last active ${gate.lastActivityAt}` : ''}.`,
        ],
        options: optionsOf(gate.kind, gate.options),
      };
    case 'verification':
      return {
        kind: gate.kind,
        title: "Every step landed, but the plan's verification failed in your project",
        detail: [
          ...gate.verification.checks.map((c) => `${c.passed ? 'Passed' : 'Failed'}: ${c.name}: ${c.output}`),
          ...(gate.verification.changed.length ? [`The verification changed: ${gate.verification.changed.join(', ')}`] : []),
        ],
        options: optionsOf(gate.kind, gate.options),
      };
    case 'question':
      return {
        kind: gate.kind,
        title: 'The planner asks',
        detail: [...gate.questions.map((q) => q.question), 'Answer in OpenCode: the question dialog, or orca_ask_planner with this plan_id.'],
        options: [],
      };
  }
}

function optionsOf(kind: CommandGate, labels: readonly string[]): GateOptionView[] {
  return labels.map((label) => {
    const entry = Object.entries(GATE_COMMANDS).find(([, spec]) => spec.option === label && (spec.gates as readonly string[]).includes(kind));
    if (!entry) throw new Error(`No orca decide choice answers "${label}" at the ${kind} gate (decisions/gate-commands.ts GATE_COMMANDS).`);
    return { label, choice: entry[0].replace(/^orca-/, ''), needs_text: label in TEXT_NEEDED };
  });
}
