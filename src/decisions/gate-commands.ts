import type { Gate, GateKind } from '../machines/gates.js';

/**
 * Channel 3: slash commands, handled in `command.execute.before` with no model turn. Each takes
 * an optional plan_id (default: the plan waiting for that decision, this session's first), at a
 * step's gate an optional `--step <id>` (default: the first step waiting there; several steps wait
 * at once after a crash that interrupted them, or when parallel steps' changes do not apply) and
 * optional text: guidance for /orca-changes, /orca-retry, /orca-replan and /orca-ontop, a note
 * otherwise. `gates` lists where a command applies: /orca-stop answers the first open gate in the
 * order they are asked (openGates): the budget gate when the plan waits there, else the step's.
 */
export const GATE_COMMANDS = {
  'orca-approve': { gates: ['approval'], option: 'Approve', description: 'Approve the plan waiting for approval' },
  'orca-changes': { gates: ['approval'], option: 'Request Changes', description: 'Request changes to the waiting plan: /orca-changes [plan_id] <guidance>' },
  'orca-reject': { gates: ['approval'], option: 'Reject', description: 'Reject the plan waiting for approval' },
  'orca-retry': { gates: ['deviation'], option: 'Retry', description: 'Retry the failed step: /orca-retry [plan_id] [--step id] [guidance]' },
  'orca-replan': {
    gates: ['deviation', 'verification'],
    option: 'Replan',
    description: 'Replan after the failed step or the failed verification: /orca-replan [plan_id] [--step id] [guidance]',
  },
  'orca-accept': {
    gates: ['verification'],
    option: 'Accept as is',
    description: "Accept the plan as it is though its verification failed in your project (the failure stays on record): /orca-accept [plan_id] [note]",
  },
  'orca-continue': {
    gates: ['budget'],
    option: 'Continue',
    description:
      'Continue the plan paused at its budget gate (dispatch cap, budget.max_cost, budget.max_tokens), raising the limit reached by as much again: /orca-continue [plan_id] [note]',
  },
  'orca-rerun': {
    gates: ['resume'],
    option: 'Re-run',
    description: 'Run again the step a restart found interrupted (it may repeat changes it made): /orca-rerun [plan_id] [--step id] [note]',
  },
  'orca-done': {
    gates: ['resume'],
    option: 'Mark done',
    description: 'Mark the interrupted step done, your words as its summary: /orca-done [plan_id] [--step id] <what it did>',
  },
  'orca-ontop': {
    gates: ['merge'],
    option: 'Run again on top',
    description:
      "Run again, on top of your working tree as it is now, the step whose changes did not apply to it: /orca-ontop [plan_id] [--step id] [guidance]",
  },
  'orca-resolved': {
    gates: ['merge'],
    option: 'Resolved by hand',
    description: "Mark done the step whose changes did not apply, once you have taken them into your tree by hand: /orca-resolved [plan_id] [--step id] [note]",
  },
  'orca-stop': {
    gates: ['budget', 'verification', 'resume', 'merge', 'deviation'],
    option: 'Stop',
    description:
      'Stop the plan waiting at a failed or interrupted step, at a step whose changes did not apply, at its budget gate or at its failed verification: /orca-stop [plan_id] [--step id] [note]',
  },
} as const satisfies Record<string, { gates: readonly CommandGate[]; option: string; description: string }>;

/** The gates a human answers with a command (planner questions are answered in the dialog). */
export type CommandGate = Extract<GateKind, 'approval' | 'deviation' | 'budget' | 'resume' | 'merge' | 'verification'>;

/** Whether a plan waiting for `kind` is answered by a command for these gates. */
export const answers = (gates: readonly CommandGate[], kind: string | null): kind is CommandGate => (gates as readonly string[]).includes(kind ?? '');
export type GateCommand = keyof typeof GATE_COMMANDS;
export const isGateCommand = (name: string): name is GateCommand => name in GATE_COMMANDS;

/** The commands that answer this gate now, as a human types them: "/orca-approve", "/orca-changes <guidance>", … */
export function commandsFor(gate: Gate): string[] {
  return Object.entries(GATE_COMMANDS)
    .filter(([, spec]) => (spec.gates as readonly string[]).includes(gate.kind) && (gate.options as readonly string[]).includes(spec.option))
    .map(([name]) => `/${name}${COMMAND_TEXT[name] ?? ''}`);
}

/** What a command needs after its name, where it needs something. */
const COMMAND_TEXT: Partial<Record<string, string>> = { 'orca-changes': ' <guidance>', 'orca-done': ' <what it did>' };
