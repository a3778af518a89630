import { GATE_COMMANDS, type CommandGate } from '../hitl/commands.js';
import { gateOfFile } from '../cli/file-gate.js';
import { APPROVAL_OPTIONS } from '../hitl/gates.js';
import type { PlanFile } from '../persistence/plan-file.js';

/**
 * What the plan waits for, with the options a human has there. Each option carries the `orca
 * decide` choice it posts, so a button sends exactly what the CLI would. Read from the plan file
 * the way `orca decide` reads it (cli/file-gate.ts).
 */
export interface GateOptionView {
  label: string;
  /** The `orca decide` choice: approve, changes, reject, retry, replan, continue, stop. */
  choice: string;
  /** Request Changes cannot be sent without guidance. */
  needs_text: boolean;
}

export interface GateView {
  kind: 'approval' | 'deviation' | 'budget' | 'question';
  /** The failed step a deviation gate is about. */
  step_id?: string;
  title: string;
  detail: string[];
  options: GateOptionView[];
}

export function gatesOf(file: PlanFile): GateView[] {
  const gates: GateView[] = [];
  if (file.waiting_for === 'approval') {
    const detail = [`${file.steps.length} step(s) proposed for: ${file.goal}`];
    gates.push({ kind: 'approval', title: 'The plan waits for approval', detail, options: optionsOf('approval', APPROVAL_OPTIONS) });
  }
  if (file.waiting_for === 'budget') {
    const gate = gateOfFile(file, ['budget']);
    if (gate.kind === 'budget') {
      gates.push({
        kind: 'budget',
        title: 'The plan paused at its dispatch cap',
        detail: [`${gate.dispatches} of ${gate.cap} dispatches used; Continue allows ${gate.increment} more.`, `${gate.completed}/${gate.total} steps completed.`],
        options: optionsOf('budget', gate.options),
      });
    }
  }
  // A failed step is answerable while the plan waits on it, or behind the dispatch cap (as `orca decide --step` allows).
  if (file.waiting_for === 'deviation' || file.waiting_for === 'budget') {
    for (const step of file.steps.filter((s) => s.status === 'awaiting_decision')) {
      const gate = gateOfFile(file, ['deviation'], step.id);
      if (gate.kind !== 'deviation') continue;
      gates.push({
        kind: 'deviation',
        step_id: step.id,
        title: `Step ${step.id} (${step.agent}) failed`,
        detail: [`${gate.failures} failed attempt(s); last error: ${gate.error}`, ...(gate.breaker ? [gate.breaker] : [])],
        options: optionsOf('deviation', gate.options),
      });
    }
  }
  if (file.waiting_for === 'question') {
    const questions = (file.snapshot.context as { questions?: Array<{ question?: unknown }> | null }).questions ?? [];
    gates.push({
      kind: 'question',
      title: 'The planner asks',
      detail: [...questions.map((q) => String(q.question ?? '')), 'Answer in OpenCode: the question dialog, or orca_ask_planner with this plan_id.'],
      options: [],
    });
  }
  return gates;
}

function optionsOf(kind: CommandGate, labels: readonly string[]): GateOptionView[] {
  return labels.map((label) => {
    const entry = Object.entries(GATE_COMMANDS).find(([, spec]) => spec.option === label && (spec.gates as readonly string[]).includes(kind));
    if (!entry) throw new Error(`No orca decide choice answers "${label}" at the ${kind} gate (hitl/commands.ts GATE_COMMANDS).`);
    return { label, choice: entry[0].replace(/^orca-/, ''), needs_text: label === 'Request Changes' };
  });
}
