import { failingBeforeSection } from './base-failures.js';
import { reviewErrorsText } from '../machines/step-text.js';
import type { ReviewError, StepDiff, StepOutput, ThreadedContext } from '../machines/types.js';
import { diffSection } from './step-diff.js';
import { laterStepsSection } from './later-steps.js';
import { keptAttempts } from '../machines/step-records.js';
import { keptChangesText, previousAttemptsList } from './previous-attempts.js';

/**
 * The quality gate (docs/design.md, "The quality gate"). The reviewer gets the step as the
 * specialist got it (goal, step, success criteria, relevant files) and what the specialist
 * reported, never its transcript; the fixer (the same specialist, in its own session) gets the
 * reviewer's error reports. What to answer is the output protocol section the turn appends (review
 * or step result format). When git measured what the step changed, the reviewer judges that diff,
 * not the specialist's claim; in the step's own worktree it may also run the checks the success
 * criteria name.
 */
export function reviewPrompt(
  thread: ThreadedContext,
  work: StepOutput,
  round: number,
  maxRounds: number,
  changes: { diff: StepDiff; patch: string | null } | null = null,
): string {
  const { step } = thread;
  const sections = [
    `# Quality gate: review of step ${step.id} (${step.agent}) of plan ${thread.plan_id}, round ${round} of ${maxRounds}`,
    `Goal of the plan: ${thread.goal}`,
    `# The step\n${step.description}\nSuccess criteria: ${step.success ?? '(none given: judge against the description)'}`,
    `# What the ${step.agent} reports\nSummary: ${work.summary}` +
      (work.artifacts.length ? `\nFiles created or changed: ${work.artifacts.join(', ')}` : '') +
      (work.key_findings.length ? `\nKey findings:\n${work.key_findings.map((k) => `- ${k}`).join('\n')}` : ''),
  ];
  if (changes) sections.push(diffSection(changes.diff, changes.patch));
  if (thread.relevant_files.length > 0) sections.push(`# Relevant files\n${thread.relevant_files.map((f) => `- ${f}`).join('\n')}`);
  const failing = failingBeforeSection(thread.failing_before, 'step');
  if (failing) sections.push(failing);
  const later = laterStepsSection(thread);
  if (later) sections.push(later);
  // A retried step: what failed before (earlier reviews' findings included) and what the user said,
  // which this attempt was told too, and that the work still holds what the failed attempts changed.
  if (thread.previous_attempts.length > 0) {
    const kept = keptChangesText(keptAttempts(thread.previous_attempts), thread.workspace === 'worktree', 'reviewer');
    sections.push(`# Earlier attempts at this step\n${previousAttemptsList(thread.previous_attempts, 'reviewer')}${kept ? `\n${kept}` : ''}`);
  }
  const run =
    changes?.diff.where === 'worktree'
      ? " You work in the step's own worktree: if the success criteria name a check (tests, a linter), run it there. Change no file."
      : '';
  sections.push(
    `# Check\nRead the ${changes ? 'changes above and the changed files' : 'changed files'}. Check syntax, imports, types, logic (does it do what the step asked, edge cases), ` +
      'style, security basics, and every success criterion. Judge this step only: what a later step is planned to do ' +
      `is not missing here.${run} The work passes when nothing must be fixed; otherwise it fails with one error per real issue, never guesses.`,
  );
  return sections.join('\n\n');
}

export function fixPrompt(thread: ThreadedContext, errors: ReviewError[], round: number): string {
  return [
    `# Fix required: the reviewer failed your work on step ${thread.step.id} (review round ${round})`,
    reviewErrorsText(errors),
    '# Rules\nFix ALL reported errors. Minimal changes only: no unrelated improvements, no refactoring while fixing. ' +
      'Then report the whole step as your step result (what it does now, the fix included): it replaces your first report for the steps after. Or a failure if you cannot fix them.',
  ].join('\n\n');
}
