import type { ToolContext } from '@opencode-ai/plugin';
import type { GateAnswer } from '../engine/drive.js';
import type { Orca } from '../orca.js';
import { autoChoice, autoPause } from './auto-policy.js';
import { choiceFromAnswers, gateQuestions } from './gate-questions.js';
import { APPROVAL_OPTIONS, decisionEvent, type Gate } from './gates.js';
import type { HitlQuestion } from '../machines/types.js';
import { askPermission } from './permission-channel.js';

const MAX_REASKS = 2;

/** The labels a plugin gate accepts; planner questions accept any answer. */
function validOptions(gate: Gate): string[] | null {
  if (gate.kind === 'question') return null;
  return gate.kind === 'approval' ? [...APPROVAL_OPTIONS] : [...gate.options];
}

const withNote = (questions: HitlQuestion[], note: string): HitlQuestion[] =>
  questions.map((q, i) => (i === 0 ? { ...q, question: `${note}\n\n${q.question.replace(/^"[^\n]*" is not one of the options[^\n]*\n\n/, '')}` } : q));

function titleOf(gate: Gate): string {
  switch (gate.kind) {
    case 'approval':
      return `Orca: approve plan ${gate.planId}?`;
    case 'deviation':
      return gate.breaker ? `Orca: step ${gate.stepId} failed (circuit breaker)` : `Orca: step ${gate.stepId} failed`;
    case 'budget':
      return `Orca: plan ${gate.planId} used its dispatch budget`;
    case 'question':
      return 'Orca: the planner asks';
  }
}

/**
 * Turn an open gate into an event through the first channel that can answer it:
 * 4. the explicit auto policy (only when configured);
 * 1. the native question dialog, raised from a direct child of the user's root session;
 * 2. the permission prompt, when the dialog is unavailable (logged).
 * A dismissed dialog, or no channel at all, leaves the plan waiting at its gate, persisted.
 */
export async function resolveGate(
  orca: Orca,
  gate: Gate,
  ctx: Pick<ToolContext, 'sessionID' | 'ask'>,
  signal: AbortSignal,
): Promise<GateAnswer> {
  const now = () => new Date().toISOString();
  const auto = autoChoice(gate, orca.options.hitl?.auto);
  if (auto) {
    orca.log('info', `plan ${gate.planId}: ${gate.kind} gate answered "${auto.option}" by ${auto.text}`);
    return { event: decisionEvent(gate, auto, { channel: 'auto', at: now() }) };
  }
  const paused = autoPause(gate, orca.options.hitl?.auto);
  if (paused) orca.log('warn', `plan ${gate.planId}: auto policy paused by the circuit breaker: ${paused}; asking a human`);

  let questions = gateQuestions(gate);
  let asked = await orca.asker.ask({ callerSessionId: ctx.sessionID, questions, title: titleOf(gate), signal });
  // OpenCode 1.18 drops `custom: false`, so the dialog lets the human type an answer that is no option.
  for (let again = 0; asked.kind === 'answered' && again < MAX_REASKS; again++) {
    const choice = choiceFromAnswers(gate, asked.answers);
    const offered = validOptions(gate);
    if (!offered || offered.includes(choice.option)) break;
    orca.log('info', `plan ${gate.planId}: "${choice.option}" is not an option at the ${gate.kind} gate; asking again`);
    questions = withNote(questions, `"${choice.option}" is not one of the options: choose ${offered.join(', ')}.`);
    asked = await orca.asker.ask({ callerSessionId: ctx.sessionID, questions, title: titleOf(gate), signal });
  }
  if (asked.kind === 'answered') {
    const choice = choiceFromAnswers(gate, asked.answers);
    const offered = validOptions(gate);
    if (offered && !offered.includes(choice.option)) {
      return { waiting: `The human answered "${choice.option}", which is not an option (${offered.join(', ')}). The plan waits at this gate.` };
    }
    return { event: decisionEvent(gate, choice, { channel: 'question', at: now() }) };
  }
  if (asked.kind === 'dismissed') {
    orca.log('info', `plan ${gate.planId}: the ${gate.kind} question was dismissed; the plan waits at its gate`);
    return { waiting: `The human dismissed the ${gate.kind} question. The plan is saved and waits at this gate.` };
  }

  orca.log('warn', `plan ${gate.planId}: question dialog unavailable (${asked.reason}); using the permission prompt`);
  const permitted = await askPermission(ctx, gate);
  if (permitted) return { event: decisionEvent(gate, permitted, { channel: 'permission', at: now() }) };
  return { waiting: `No channel could ask the human (${asked.reason}). The plan is saved and waits at this gate.` };
}
