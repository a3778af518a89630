import type { ToolContext } from '@opencode-ai/plugin';
import type { GateAnswer } from '../host/drive.js';
import type { OrcaOptions } from '../config/options.js';
import type { QuestionAsker } from './native-question/index.js';
import type { UsageHistory } from '../usage/history.js';
import { autoChoice, autoPause } from '../decisions/auto-policy.js';
import { choiceFromAnswers, gatePages, gateQuestions } from './gate-questions.js';
import { dialogRows } from './dialog-rows.js';
import { showPages } from './dialog-pages.js';
import { decisionEvent, type Gate } from '../machines/gates.js';
import { refusalOf } from '../decisions/decide.js';
import type { HitlQuestion } from '../machines/types.js';
import { askPermission } from './permission-channel.js';
import type { PlanEvent } from '../machines/plan.machine.js';
import { forecastPlan, forecastText, type Forecast } from '../usage/forecast.js';

const MAX_REASKS = 2;

/** The gate's questions again with a note on top, the plan's summary shortened so the options stay on screen. */
const withNote = (gate: Gate, note: string): HitlQuestion[] => {
  const rows = dialogRows(`Note: ${note}`) + 1; // and the blank line under it
  return gateQuestions(gate, { reserve: rows }).map((q, i) => (i === 0 ? { ...q, question: `Note: ${note}\n\n${q.question}` } : q));
};

/** The dialog's session title, also the first line of its message. */
export function titleOf(gate: Gate): string {
  switch (gate.kind) {
    case 'approval':
      return `Orca: approve plan ${gate.planId}?`;
    case 'deviation':
      return gate.breaker ? `Orca: step ${gate.stepId} failed (circuit breaker)` : `Orca: step ${gate.stepId} failed`;
    case 'budget':
      return `Orca: plan ${gate.planId} reached its budget`;
    case 'question':
      return 'Orca: the planner asks';
    case 'resume':
      return `Orca: step ${gate.stepId} was interrupted`;
    case 'merge':
      return `Orca: step ${gate.stepId}'s changes did not apply`;
    case 'verification':
      return `Orca: plan ${gate.planId}'s verification failed`;
  }
}

/** The first row of each page: what is being read. */
function headingOf(gate: Gate): string {
  if (gate.kind === 'deviation') return `Plan ${gate.planId}: step ${gate.stepId} failed`;
  if (gate.kind === 'merge') return `Plan ${gate.planId}: step ${gate.stepId} did not apply`;
  return `Plan ${gate.planId} for approval`;
}

/** The approval gate's forecast from this project's usage history (docs/design.md, "Usage and cost"). */
export function forecastOf(orca: Pick<GateResolverDeps, 'history'>, gate: Gate): Forecast | undefined {
  if (gate.kind !== 'approval') return undefined;
  return forecastPlan(gate.proposal.steps, gate.review_agents, (agent) => orca.history.stats(agent));
}

/** What the auto policy's answer uses: the options (their `hitl.auto`) and the log. */
export interface AutoAnswerDeps {
  options: Pick<OrcaOptions, 'hitl'>;
  log(level: 'info' | 'warn', message: string): void;
}

/** What resolving a gate uses besides the auto policy: the usage history (the approval's forecast) and the question dialog. */
export interface GateResolverDeps extends AutoAnswerDeps {
  history: Pick<UsageHistory, 'stats'>;
  asker: QuestionAsker;
  /** Why steps share the project directory instead of worktrees of their own, said once (the first plan's approval): null once said, or when they do get worktrees. */
  workspaceNotice?: () => string | null;
}

/**
 * Channel 4 alone: the configured auto policy's answer to a gate (logged), or null when a human
 * must answer it (logged too when the breaker paused the policy). Shared by orca_ask_planner's
 * resolver and the follower of plans the agenda started, which have no caller to ask.
 */
export function autoAnswer(orca: AutoAnswerDeps, gate: Gate, forecast?: Forecast): { event: PlanEvent } | null {
  const auto = autoChoice(gate, orca.options.hitl?.auto);
  if (auto) {
    orca.log('info', `plan ${gate.planId}: ${gate.kind} gate answered "${auto.option}" by ${auto.text}${forecast ? ` (${forecastText(forecast)})` : ''}`);
    return { event: decisionEvent(gate, auto, { channel: 'auto', at: new Date().toISOString() }) };
  }
  const paused = autoPause(gate, orca.options.hitl?.auto);
  if (paused) orca.log('warn', `plan ${gate.planId}: auto policy paused by the circuit breaker: ${paused}; asking a human`);
  return null;
}

/**
 * Turn an open gate into an event through the first channel that can answer it:
 * 4. the explicit auto policy (only when configured);
 * 1. the native question dialog, raised from a direct child of the user's root session;
 * 2. the permission prompt, when the dialog is unavailable (logged).
 * A dismissed dialog, or no channel at all, leaves the plan waiting at its gate, persisted.
 */
export async function resolveGate(
  orca: GateResolverDeps,
  gate: Gate,
  ctx: Pick<ToolContext, 'sessionID' | 'ask'>,
  signal: AbortSignal,
): Promise<GateAnswer> {
  const now = () => new Date().toISOString();
  const forecast = forecastOf(orca, gate);
  const auto = autoAnswer(orca, gate, forecast);
  if (auto) return auto;

  // An informed decision: what does not fit in the question is read in full, page by page, first.
  const pages = gatePages(gate, forecast ? { forecast } : {});
  const read = pages.length
    ? await showPages(orca.asker, { callerSessionId: ctx.sessionID, title: titleOf(gate), heading: headingOf(gate), pages, signal })
    : ({ kind: 'read', pages: 0 } as const);
  if (read.kind === 'dismissed') {
    orca.log('info', `plan ${gate.planId}: the ${gate.kind} pages were dismissed; the plan waits at its gate`);
    return { waiting: `The human dismissed the ${gate.kind} question. The plan is saved and waits at this gate.` };
  }
  let questions = gateQuestions(gate, forecast ? { forecast } : {});
  let asked = read.kind === 'unavailable' ? read : await orca.asker.ask({ callerSessionId: ctx.sessionID, questions, title: titleOf(gate), signal });
  // OpenCode 1.18 drops `custom: false` (https://github.com/anomalyco/opencode/issues/45230), so
  // the dialog lets the human type an answer that is no option.
  // The same check as every other channel (decisions/decide.ts): an option the gate offers, with text where it needs one.
  for (let again = 0; asked.kind === 'answered' && again < MAX_REASKS; again++) {
    const refused = refusalOf(gate, choiceFromAnswers(gate, asked.answers), 'question');
    if (!refused) break;
    orca.log('info', `plan ${gate.planId}: ${refused.message} Asking again.`);
    questions = withNote(gate, refused.message);
    asked = await orca.asker.ask({ callerSessionId: ctx.sessionID, questions, title: titleOf(gate), signal });
  }
  if (asked.kind === 'answered') {
    const choice = choiceFromAnswers(gate, asked.answers);
    const refused = refusalOf(gate, choice, 'question');
    if (refused) return { waiting: `${refused.message} The plan waits at this gate.` };
    return { event: decisionEvent(gate, choice, { channel: 'question', at: now() }) };
  }
  if (asked.kind === 'dismissed') {
    orca.log('info', `plan ${gate.planId}: the ${gate.kind} question was dismissed; the plan waits at its gate`);
    return { waiting: `The human dismissed the ${gate.kind} question. The plan is saved and waits at this gate.` };
  }

  orca.log('warn', `plan ${gate.planId}: question dialog unavailable (${asked.reason}); using the permission prompt`);
  const permitted = await askPermission(ctx, gate, forecast ? { forecast } : {});
  if (permitted) {
    const refused = refusalOf(gate, permitted, 'permission');
    if (refused) return { waiting: `${refused.message} The plan waits at this gate.` };
    return { event: decisionEvent(gate, permitted, { channel: 'permission', at: now() }) };
  }
  return { waiting: `No channel could ask the human (${asked.reason}). The plan is saved and waits at this gate.` };
}
