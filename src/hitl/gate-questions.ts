import type { HitlQuestion } from '../machines/types.js';
import { APPROVAL_OPTIONS, type Gate } from '../machines/gates.js';
import { diffSummary } from '../machines/plan-diff.js';
import { modelCalls, totalTokens, ZERO_USAGE } from '../machines/usage.js';
import { forecastText, type Forecast } from '../usage/forecast.js';
import { formatCost, formatTokens, turnsText, usageText } from '../usage/format.js';
import { APPROVAL_QUESTION_LINES, DIALOG_TEXT_WIDTH, dialogRows, typingKeys, withTypingKeys } from './dialog-rows.js';
import { paginate, PAGE_ROWS } from './dialog-pages.js';
import { changedBlock, gateDocument } from './gate-document.js';
import { changeSummary, conflictPaths } from '../text/step-diff.js';

/**
 * The questions a human sees for a gate. Plugin gates use the two-question pattern: the action
 * (fixed options, custom: false) and optional free text (custom: true). A planner's questions
 * pass through as the planner wrote them: the emitter owns the format. The approval question
 * carries the plan's forecast when the caller has one (it needs the project's usage history).
 * `reserve`: rows of the dialog another line takes (a note above the question), which the plan's
 * summary gives up, as it gives up the forecast's rows.
 */
export function gateQuestions(gate: Gate, { forecast, reserve = 0 }: { forecast?: Forecast; reserve?: number } = {}): HitlQuestion[] {
  switch (gate.kind) {
    case 'question':
      return gate.questions.map(withTypingKeys);
    case 'approval': {
      return [
        {
          header: 'Plan approval',
          question: approvalQuestion(gate, forecast ? forecastText(forecast) : undefined, reserve),
          options: APPROVAL_OPTIONS.map((label) => ({ label, description: APPROVAL_HELP[label] })),
          custom: false,
        },
        guidanceQuestion('Guidance for the planner (used with Request Changes), or a note for the record. Optional.'),
      ];
    }
    case 'deviation': {
      const head = deviationHead(gate);
      const ask = deviationAsk(gate);
      // The whole error when it fits; else as much of it as leaves the options on screen, the
      // whole error being on the pages shown before the question (gatePages).
      // What the attempt changed: every file when it all fits, else the totals (the files are on the pages).
      const changed = gate.diff ? `\nIt changed ${changeSummary(gate.diff)}; the files were shown before this question.` : '';
      const body = wholeFits(gate, undefined, reserve)
        ? `${gate.error}${deviationChanged(gate)}`
        : `${fitRows(`${head}${gate.error}`, APPROVAL_QUESTION_LINES - reserve - dialogRows(ask) - 1 - (changed ? dialogRows(changed) - 1 : 0)).slice(head.length)}\n(The whole error was shown before this question.)${changed}`;
      return [
        {
          header: (gate.breaker ? `Breaker: step ${gate.stepId}` : `Step ${gate.stepId} failed`).slice(0, 30),
          question: `${head}${body}\n${ask}`,
          options: gate.options.map((label) => ({
            label,
            description: label === 'Retry' && gate.breaker ? BREAKER_RETRY_HELP : DEVIATION_HELP[label],
          })),
          custom: false,
        },
        guidanceQuestion('Guidance for the retry or the replan, or a note for the record. Optional.'),
      ];
    }
    case 'resume': {
      const turn = gate.turn === 'fix' ? 'its fix after a review' : 'its turn';
      const files = gate.files.length ? gate.files.join(', ') : 'none declared (it may have changed any file)';
      const since = gate.lastActivityAt ? `, last active ${gate.lastActivityAt.replace(/\.\d+Z$/, 'Z')}` : '';
      // Kept to the dialog's rows at 80x24 (see APPROVAL_QUESTION_LINES): the detail is cut, the session named.
      return [
        {
          header: `Interrupted: ${gate.stepId}`.slice(0, 30),
          question:
            `Plan ${gate.planId}: step ${gate.stepId} (${gate.agent}), attempt ${gate.attempt}, was interrupted (Esc, or its server stopped), ` +
            `and ${turn} left no result to reuse (${oneLine(gate.detail, 80)}). It may already have changed files: ${files}.\n` +
            `Session ${gate.sessionId}${since}.\nRe-run it, mark it done (type what it did in the next tab), or stop the plan?`,
          options: gate.options.map((label) => ({ label, description: RESUME_HELP[label] })),
          custom: false,
        },
        guidanceQuestion('For Mark done: what the step did (it becomes its summary). Otherwise a note for the record. Optional.'),
      ];
    }
    case 'merge':
      return [
        {
          header: `Not applied: ${gate.stepId}`.slice(0, 30),
          question: mergeQuestion(gate, reserve),
          options: gate.options.map((label) => ({ label, description: MERGE_HELP[label] })),
          custom: false,
        },
        guidanceQuestion('Guidance for the run on top of your tree, or a note for the record. Optional.'),
      ];
    case 'verification': {
      const failed = gate.verification.checks.filter((c) => !c.passed).map((c) => c.name);
      return [
        {
          header: 'Verification failed',
          question: `Plan ${gate.planId}: every step landed, but its verification failed in ${gate.verification.where ?? 'your project'}: ${failed.join('; ') || 'no check passed'} (what each said was shown before this question). Replan, accept as is, or stop?`,
          options: gate.options.map((label) => ({ label, description: VERIFICATION_HELP[label] })),
          custom: false,
        },
        guidanceQuestion('Guidance for the replan, or a note for the record. Optional.'),
      ];
    }
    case 'budget':
      return [
        {
          header: budgetHeader(gate),
          question: budgetQuestion(gate),
          options: gate.options.map((label) => ({ label, description: BUDGET_HELP[label] })),
          custom: false,
        },
        guidanceQuestion('A note for the record. Optional.'),
      ];
  }
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

type BudgetGate = Extract<Gate, { kind: 'budget' }>;

function budgetHeader(gate: BudgetGate): string {
  if (gate.crossed.length !== 1) return 'Budget reached';
  return { dispatches: 'Dispatch budget spent', cost: 'Cost budget reached', tokens: 'Token budget reached' }[gate.crossed[0]!];
}

/** Which limits were reached, what was spent and on which steps, and what Continue and Stop do. */
export function budgetQuestion(gate: BudgetGate): string {
  const reached = gate.crossed.map((limit) => {
    if (limit === 'dispatches') return `${gate.dispatches} dispatches of the cap ${gate.cap} (specialist, reviewer and fixer turns)`;
    if (limit === 'cost') return `${formatCost(gate.usage.cost)} spent of the ${formatCost(gate.cost_cap ?? 0)} limit (budget.max_cost)`;
    return `${formatTokens(totalTokens(gate.usage))} tokens of the ${formatTokens(gate.token_cap ?? 0)} limit (budget.max_tokens)`;
  });
  const spentOn = gate.steps.filter((st) => st.usage.turns > 0).map((st) => `${st.id} (${st.agent}, ${st.status}) ${usageText(st.usage)}`);
  const stepTurns = gate.steps.reduce((n, st) => n + st.usage.turns, 0);
  const rest = gate.usage.turns - stepTurns;
  if (rest > 0) {
    const stepCost = gate.steps.reduce((n, st) => n + st.usage.cost, 0);
    const stepTokens = gate.steps.reduce((n, st) => n + totalTokens(st.usage), 0);
    const stepCalls = gate.steps.map((st) => modelCalls(st.usage));
    const planCalls = modelCalls(gate.usage);
    // Unknown (plan files from before model calls were counted) unless every part is known.
    const restCalls = planCalls === undefined || stepCalls.includes(undefined) ? undefined : planCalls - stepCalls.reduce((n: number, c) => n + c!, 0);
    const others = turnsText({ ...ZERO_USAGE, turns: rest, model_calls: restCalls });
    spentOn.push(`other turns (planner, asks) ${others}, ${formatTokens(totalTokens(gate.usage) - stepTokens)} tokens, ${formatCost(Math.max(0, gate.usage.cost - stepCost))}`);
  }
  const raises = gate.crossed.map((limit) => {
    if (limit === 'dispatches') return `allows ${gate.increment} more dispatches`;
    if (limit === 'cost') return `raises the money limit by ${formatCost(gate.cost_increment ?? 0)} to ${formatCost(gate.after_continue.cost_cap ?? 0)}`;
    return `raises the token limit by ${formatTokens(gate.token_increment ?? 0)} to ${formatTokens(gate.after_continue.token_cap ?? 0)}`;
  });
  const steps = `${gate.completed} of ${gate.total} step${gate.total === 1 ? '' : 's'} completed`;
  return (
    `Plan ${gate.planId} has reached its budget: ${reached.join('; ')}. ${capitalize(steps)}. No new dispatch starts until you decide.\n` +
    `Spent so far: ${usageText(gate.usage)}${spentOn.length ? `, on ${spentOn.join('; ')}` : ''}.\n` +
    `Continue ${raises.join(' and ')}; Stop ends the plan as failed, keeping what is done.`
  );
}

/** Typed words, or No guidance (1): "Type your own answer" is 2. */
const guidanceQuestion = (question: string): HitlQuestion => ({
  header: 'Guidance',
  question: `${question} ${typingKeys(2)}`,
  options: [{ label: 'No guidance', description: 'Go on without a note' }],
  custom: true,
});

const APPROVAL_HELP: Record<string, string> = {
  Approve: 'Run the plan now',
  'Request Changes': 'Send your guidance to the planner for a revised plan',
  Reject: 'Drop this plan',
};
const DEVIATION_HELP: Record<string, string> = {
  Retry: 'Run this step again (with your guidance, if any)',
  Replan: 'Ask the planner for a revised plan; completed steps are kept',
  Stop: 'End the plan as failed',
};
const BREAKER_RETRY_HELP = 'Run this step again anyway: the same error keeps coming back, so guidance helps';
const RESUME_HELP: Record<string, string> = {
  'Re-run': 'Run the step again in its session (it may repeat changes it made)',
  'Mark done': 'Keep what it did: your words become its summary, nothing runs again',
  Stop: 'End the plan as failed; completed steps keep their outputs',
};
const MERGE_HELP: Record<string, string> = {
  'Run again on top': 'Run the step again from your tree as it is now (guidance helps)',
  'Resolved by hand': 'You took its changes into your tree yourself: the step is done',
  Stop: 'End the plan as failed; completed steps keep their outputs',
};
const BUDGET_HELP: Record<string, string> = {
  Continue: 'Raise the limit that was reached and go on with the plan',
  Stop: 'End the plan as failed; completed steps keep their outputs',
};
const VERIFICATION_HELP: Record<string, string> = {
  Replan: 'Ask the planner for a revised plan, told what failed',
  'Accept as is': 'End the plan completed, the failed check on record',
  Stop: "End the plan as failed; the steps' changes stay in your tree",
};

/** The human's answers to gateQuestions(gate), as a choice for decisionEvent. */
export function choiceFromAnswers(gate: Gate, answers: string[][]): { option: string; text?: string; answers?: string[][] } {
  if (gate.kind === 'question') return { option: 'answers', answers };
  const option = answers[0]?.[0] ?? '';
  const text = answers[1]?.[0];
  return { option, ...(text && text !== 'No guidance' ? { text } : {}) };
}

/**
 * The plan in at most `lines` lines of DIALOG_TEXT_WIDTH, the question's last line included: the
 * goal, what changed since the version the human saw, one line per step with its dependencies
 * (as many as fit, then how many more), and the files, risks and checks counted. Shown when the
 * whole plan does not fit in the question: the human read it in full before it (on pages, or in the
 * question asked again after a typed answer that was no option).
 */
export function approvalText(gate: Extract<Gate, { kind: 'approval' }>, lines = APPROVAL_QUESTION_LINES - 1): string {
  const { proposal: p } = gate;
  const fit = (text: string) => oneLine(text, DIALOG_TEXT_WIDTH);
  const head = [fit(`Goal: ${p.goal}`), ...(gate.changes ? [fit(`Changed: ${diffSummary(gate.changes).join('; ')}`)] : [])];
  const files = new Set([...(p.relevant_files ?? []), ...p.steps.flatMap((s) => s.files ?? [])]);
  const facts = fit([count(files.size, 'file'), count(p.risks.length, 'risk'), count(p.verification.length, 'check')].join(' · '));
  const room = Math.max(1, lines - head.length - 1);
  const shown = p.steps.length <= room ? p.steps.length : Math.max(0, room - 1);
  const steps = p.steps.slice(0, shown).map((s, i) => fit(`${i + 1}. ${s.id} (${s.agent})${s.depends_on?.length ? ` ← ${s.depends_on.join(', ')}` : ''}: ${s.description}`));
  if (shown < p.steps.length) steps.push(fit(`+ ${p.steps.length - shown} more step(s), shown in full before this question`));
  return [...head, ...steps, facts].join('\n');
}

/** The approval question: the whole plan when it fits (see wholeFits), else its summary; the forecast; the question. */
function approvalQuestion(gate: Extract<Gate, { kind: 'approval' }>, forecast: string | undefined, reserve: number): string {
  const ask = `Approve plan ${gate.planId}?`;
  const rows = APPROVAL_QUESTION_LINES - reserve;
  if (wholeFits(gate, forecast, reserve)) return `${gateDocument(gate, forecast ? { forecast } : {})!.join('\n')}\n${ask}`;
  const forecastRows = forecast ? dialogRows(forecast) : 0;
  return [approvalText(gate, rows - 1 - forecastRows), ...(forecast ? [forecast] : []), ask].join('\n');
}

const deviationAsk = (gate: Extract<Gate, { kind: 'deviation' }>) =>
  `${gate.breaker ? `${capitalize(gate.breaker)}.\n` : ''}${gate.options.includes('Retry') ? 'What now?' : 'Retry is no longer offered after this many failures. What now?'}`;
const deviationHead = (gate: Extract<Gate, { kind: 'deviation' }>) =>
  `Step ${gate.stepId} (${gate.agent}) failed (${gate.failures} failed attempt${gate.failures === 1 ? '' : 's'}): `;

/** Every file the failed attempt changed, under its error: "\nIt changed: 2 files +3 −1\n- a.ts +2 −1…", or nothing without a diff. */
const deviationChanged = (gate: Extract<Gate, { kind: 'deviation' }>) => (gate.diff ? `\n${changedBlock(gate.diff, 'It changed')}` : '');

type MergeGate = Extract<Gate, { kind: 'merge' }>;

const mergeAsk = (gate: MergeGate) =>
  gate.options.includes('Run again on top')
    ? 'Run it again on top of your tree, take its changes by hand, or stop?'
    : 'Run again on top is no longer offered after this many attempts. Take its changes by hand, or stop?';

/**
 * The merge question: everything (the conflicting regions too) when it fits, else the files in one
 * line, what the step changed in totals, where its worktree and patch are, the regions having been
 * shown on pages before it.
 */
function mergeQuestion(gate: MergeGate, reserve: number): string {
  const ask = mergeAsk(gate);
  if (wholeFits(gate, undefined, reserve)) return `${gateDocument(gate)!.join('\n')}\n${ask}`;
  const tail = [
    ...(gate.diff ? [`It changed ${changeSummary(gate.diff)}.`] : []),
    `Worktree: ${gate.worktree ?? 'not kept'}`,
    `Patch: ${gate.diff?.patch_path ?? 'not written'}`,
    '(Its conflicts were shown before this question.)',
    ask,
  ].join('\n');
  const head =
    `Step ${gate.stepId} (${gate.agent}), attempt ${gate.attempt}: its changes did not apply to your working tree ` +
    `(${gate.conflicts.length ? `conflicts in ${conflictPaths(gate.conflicts)}` : 'git named no conflicting file'}${gate.error ? `; git: ${oneLine(gate.error, 120)}` : ''}).`;
  return `${fitRows(head, Math.max(1, APPROVAL_QUESTION_LINES - reserve - dialogRows(tail)))}\n${tail}`;
}

/** Whether the gate's question can hold all the human should read (gate-document.ts) and keep its options on screen. */
function wholeFits(gate: Gate, forecast: string | undefined, reserve = 0): boolean {
  const rows = APPROVAL_QUESTION_LINES - reserve;
  if (gate.kind === 'approval') return dialogRows(`${gateDocument(gate, forecast ? { forecast } : {})!.join('\n')}\nApprove plan ${gate.planId}?`) <= rows;
  if (gate.kind === 'deviation') return dialogRows(`${deviationHead(gate)}${gate.error}${deviationChanged(gate)}\n${deviationAsk(gate)}`) <= rows;
  if (gate.kind === 'merge') return dialogRows(`${gateDocument(gate)!.join('\n')}\n${mergeAsk(gate)}`) <= rows;
  return true;
}

/**
 * What the human reads, page by page, before a gate's question when the question cannot hold it
 * all (the whole plan, the whole error of a failed step): none when it fits in the question.
 */
export function gatePages(gate: Gate, { forecast }: { forecast?: Forecast } = {}): string[] {
  const text = forecast ? forecastText(forecast) : undefined;
  const document = gateDocument(gate, text ? { forecast: text } : {});
  if (document === null || wholeFits(gate, text)) return [];
  // Each page's first row says where the reader is (dialog-pages.ts pageQuestion).
  return paginate(document.join('\n\n'), PAGE_ROWS - 1);
}

/** `text` cut at a word so it takes at most `rows` dialog rows, with "…" where it was cut. */
function fitRows(text: string, rows: number): string {
  if (dialogRows(text) <= rows) return text;
  const words = text.replace(/\s+/g, ' ').split(' ');
  let out = '';
  for (const word of words) {
    const next = out ? `${out} ${word}` : word;
    if (dialogRows(`${next} …`) > rows) break;
    out = next;
  }
  return `${out} …`;
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

const oneLine = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
