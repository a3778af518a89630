import { checkVerdict, failureLines, type CheckVerdict } from '../machines/verification.js';
import type { Gate } from '../machines/gates.js';
import type { PlanDiff } from '../machines/plan-diff.js';
import { stepWaves } from '../machines/step-graph.js';
import { commandsFor } from '../decisions/gate-commands.js';
import { conflictHunks } from '../text/step-diff.js';
import { changedBlock, count, failingBeforeBlock, list, resolveBlock, stepBlock } from './gate-document.js';
import { budgetQuestion } from './gate-questions.js';

/**
 * A gate's document as a note in the session that started the plan (docs/design.md,
 * "Where the human reads"): everything to read before deciding, in full, as the TUI renders it
 * (markdown), kept in the session as the record of the decision. The dialog under it (decision-dialog.ts) asks only the
 * decision. What a program printed (an error, conflicting regions, what git said) goes in fenced
 * blocks, shown as it is; the rest is prose and lists; the last paragraph says how to answer.
 */
export function gateNote(gate: Gate, { forecast, where }: { forecast?: string; where?: string } = {}): string {
  return [...noteBlocks(gate, forecast, where), howToAnswer(gate)].join('\n\n');
}

function noteBlocks(gate: Gate, forecast: string | undefined, where: string | undefined): string[] {
  const id = gate.planId;
  switch (gate.kind) {
    case 'approval': {
      const p = gate.proposal;
      const revised = gate.changes ? ' (a revised version)' : '';
      const head = `Orca: plan ${id} waits for your approval${revised}: ${count(p.steps.length, 'step')}.`;
      // A revision says what changed first, then the overview of the plan as it is now, then the details.
      const blocks = gate.changes
        ? [head, `What changed since the version you saw:\n${changeLines(gate.changes).join('\n')}`, overview(p.goal, p.steps)]
        : [`${head}\n${overview(p.goal, p.steps)}`];
      p.steps.forEach((step, i) => blocks.push(stepBlock(step, i, p.steps.length)));
      blocks.push(list('Assumptions', p.assumptions), list('Risks', p.risks), list('Verification', p.verification));
      // What already fails is not the plan's: said before the person decides, as its verification will say it.
      if (gate.failing_before?.length) blocks.push(failingBeforeBlock(gate.failing_before));
      if (p.relevant_files?.length) blocks.push(`Relevant files: ${p.relevant_files.join(', ')}`);
      if (forecast) blocks.push(forecast);
      if (where) blocks.push(where);
      return blocks;
    }
    case 'deviation':
      return [
        `Orca: step ${gate.stepId} (${gate.agent}) of plan ${id} failed (${count(gate.failures, 'failed attempt')}).${gate.breaker ? `\n${gate.breaker}.` : ''}`,
        `The error of its last attempt, in full:\n${fenced(gate.error)}`,
        ...(gate.diff ? [changedBlock(gate.diff, 'What the failed attempt changed')] : []),
      ];
    case 'merge':
      return [
        `Orca: the changes of step ${gate.stepId} (${gate.agent}) of plan ${id}, attempt ${gate.attempt}, did not apply to your working tree ` +
          `(${gate.conflicts.length ? `conflicts in ${count(gate.conflicts.length, 'file')}` : 'git named no conflicting file'}). Your tree is as it was.`,
        ...gate.conflicts.map((c) => `Conflict in ${c.path}:\n${fenced(conflictHunks(c).join('\n\n'))}`),
        ...(gate.error ? [`What git said:\n${fenced(gate.error)}`] : []),
        ...(gate.diff ? [changedBlock(gate.diff, 'What the step changed')] : []),
        resolveBlock(gate),
      ];
    case 'budget':
      return [`Orca: ${budgetQuestion(gate).replace(/^Plan /, 'plan ')}`];
    case 'resume': {
      const turn = gate.turn === 'fix' ? 'its fix after a review' : 'its turn';
      return [
        `Orca: step ${gate.stepId} (${gate.agent}) of plan ${id}, attempt ${gate.attempt}, was interrupted (a pause, Esc, or its server stopping), and ${turn} left no result to reuse.`,
        `What is known: ${gate.detail}`,
        `It may already have changed files: ${gate.files.length ? gate.files.join(', ') : 'none declared (it may have changed any file)'}.\n` +
          `Its session: ${gate.sessionId}${gate.lastActivityAt ? `, last active ${gate.lastActivityAt}` : ''}.`,
        'Re-run runs the same attempt again in its session (it may repeat changes it made); Mark done keeps what it did, your words becoming its summary; Stop ends the plan as failed.',
      ];
    }
    case 'verification': {
      const v = gate.verification;
      const failed = v.checks.filter((c) => checkVerdict(c) === 'new');
      return [
        `Orca: every step of plan ${id} landed, but its verification failed in ${v.where ?? 'your project'} (${count(failed.length, 'new failure')} of ${count(v.checks.length, 'check')}).`,
        // A failed command ran again on the plan's base: what failed now and before, so the person sees what the
        // plan broke (each run's lines that name its failures; the whole outputs are in orca show and the viewer).
        ...v.checks.map((c) => {
          const verdict = checkVerdict(c);
          const words = verdict === 'new' && c.before && !c.before.passed ? 'Failed, with a failure more than before the plan (a new failure)' : VERDICT_WORDS[verdict];
          if (c.passed || c.kind !== 'command') return `${words}: ${c.name}\n${fenced(c.output)}`;
          const before = c.before ? `\nBefore the plan (on its base): ${c.before.passed ? 'passed' : `failed\n${fenced(failureLines(c.before.output, 12).join('\n'))}`}` : '';
          return `${words}: ${c.name}\n${fenced(failureLines(c.output, 12).join('\n'))}${before}`;
        }),
        `The whole outputs: orca show ${id}.`,
        ...(gate.planned.length ? [list("The plan's verification list", gate.planned)] : []),
        ...(v.changed.length ? [`The verification changed these files in your project: ${v.changed.join(', ')}`] : []),
        "Replan asks the planner for a revised plan, told what failed (the steps' changes stay in your tree); Accept as is ends the plan completed with the failure on record; Stop ends it as failed (the changes stay).",
      ];
    }
    case 'question':
      return [
        `Orca: the planner asks about plan ${id}:`,
        ...gate.questions.map((q) => [`${q.header}: ${q.question}`, ...q.options.map((o) => `- ${o.label}${o.description ? `: ${o.description}` : ''}`)].join('\n')),
      ];
  }
}

/** A check of the verification, as its gate's note heads it. */
const VERDICT_WORDS: Record<CheckVerdict, string> = { passed: 'Passed', old: 'Failed before the plan too (an old failure, not the plan\'s)', new: 'Failed (a new failure)' };

/**
 * Columns a row of the overview may take: the TUI at 80 columns draws a note's text from column 5
 * and wraps it before the last few (checked in tmux, 1.18.33); a list item is indented two more.
 */
export const OVERVIEW_ROW_WIDTH = 70;

/**
 * What a person decides on, before the details (docs/gates.md, the approval note): the goal,
 * the order line, and one row per step (id, agent, the files it names), each at most one row at 80
 * columns, so a 4-step plan's overview fits one screen at 80x24 (checked in tmux). A single step has
 * no order and no row: its whole block follows at once.
 */
export function overview(goal: string, steps: ReadonlyArray<{ id: string; agent: string; files?: string[] | undefined; depends_on?: string[] | undefined }>): string {
  const order = orderLine(steps);
  // One block, no blank row inside: with the dialog open at 80x24 about ten rows are left above it.
  return [`Goal: ${goal}`, ...(order ? [order, ...steps.map((step) => overviewRow(step))] : [])].join('\n');
}

/** `- impl (coder): src/a.ts, src/b.ts`, the files cut with how many more when the row would not fit. */
export function overviewRow(step: { id: string; agent: string; files?: string[] | undefined }, width = OVERVIEW_ROW_WIDTH): string {
  const head = `- ${step.id} (${step.agent})`;
  const files = step.files ?? [];
  if (files.length === 0) return cut(head, width);
  for (let shown = files.length; shown > 0; shown--) {
    const more = files.length - shown;
    const row = `${head}: ${files.slice(0, shown).join(', ')}${more ? ` +${more} more` : ''}`;
    if (row.length <= width) return row;
  }
  return cut(`${head}: ${files[0]}`, width);
}

const cut = (text: string, width: number) => (text.length <= width ? text : `${text.slice(0, width - 1)}…`);

/** Which steps run at the same time and what waits for what, in one line: "Order: a and b at once, then c." */
function orderLine(steps: ReadonlyArray<{ id: string; depends_on?: string[] | undefined }>): string | null {
  if (steps.length < 2) return null;
  const waves = stepWaves(steps);
  const words = waves.map((wave) => (wave.length === 1 ? wave[0]! : `${wave.slice(0, -1).join(', ')} and ${wave.at(-1)} at once`));
  return `Order: ${words.join(', then ')}.`;
}

/** How to answer: the dialog under the note, or later a command; what Esc does. */
function howToAnswer(gate: Gate): string {
  const later = gate.kind === 'question' ? '' : ` answer later with ${commandsFor(gate).join(', ')}, or`;
  const guidance =
    gate.kind === 'deviation' && gate.options.includes('Retry')
      ? ' To retry or replan with guidance, type /orca-retry <guidance> or /orca-replan <guidance> instead.'
      : gate.kind === 'merge' && gate.options.includes('Run again on top')
        ? ' To run it again with guidance, type /orca-ontop <guidance> instead.'
        : '';
  return `Decide in the dialog below.${guidance} Esc closes the dialog and the plan waits:${later} type /orca-resume to be asked again.`;
}

/** A revision's changes, one list item each, in words: a leading "+" or "-" would read as a list marker. */
function changeLines(diff: PlanDiff): string[] {
  const lines = [
    ...(diff.goal ? [`- goal: ${diff.goal.from} → ${diff.goal.to}`] : []),
    ...diff.added.map((s) => `- added ${s.id} (${s.agent}): ${s.description}`),
    ...diff.removed.map((s) => `- removed ${s.id} (${s.agent}): ${s.description}`),
    ...diff.changed.flatMap((c) => c.fields.map((f) => `- changed ${c.id} ${f.field}: ${f.from} → ${f.to}`)),
    ...(diff.kept.length ? [`- kept (completed, not run again): ${diff.kept.join(', ')}`] : []),
  ];
  return lines.length ? lines : ['- no change to the steps or the goal'];
}

/** `text` in a fenced block the TUI shows as it is: a fence longer than any run of backticks inside it. */
export function fenced(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}\n${text}\n${fence}`;
}
