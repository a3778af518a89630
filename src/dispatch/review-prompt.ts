import { reviewErrorsText } from '../machines/step.machine.js';
import type { ReviewError, StepOutput, ThreadedContext } from '../machines/types.js';

/**
 * Seed 003's quality gate. The reviewer gets the step as the specialist got it (goal, step,
 * success criteria, relevant files) and what the specialist reported, never its transcript; the
 * fixer (the same specialist, in its own session) gets the reviewer's error reports.
 */
export function reviewPrompt(thread: ThreadedContext, work: StepOutput, round: number, maxRounds: number): string {
  const { step } = thread;
  const sections = [
    `# Quality gate: review of step ${step.id} (${step.agent}) of plan ${thread.plan_id}, round ${round} of ${maxRounds}`,
    `Goal of the plan: ${thread.goal}`,
    `# The step\n${step.description}\nSuccess criteria: ${step.success ?? '(none given: judge against the description)'}`,
    `# What the ${step.agent} reports\nSummary: ${work.summary}` +
      (work.artifacts.length ? `\nFiles created or changed: ${work.artifacts.join(', ')}` : '') +
      (work.key_findings.length ? `\nKey findings:\n${work.key_findings.map((k) => `- ${k}`).join('\n')}` : ''),
  ];
  if (thread.relevant_files.length > 0) sections.push(`# Relevant files\n${thread.relevant_files.map((f) => `- ${f}`).join('\n')}`);
  sections.push(
    '# Check\nRead the changed files. Check syntax, imports, types, logic (does it do what the step asked, edge cases), ' +
      'style, security basics, and every success criterion. Report only real issues, never guesses.',
    '# Answer\nOne JSON object (see the output protocol below): {"type":"pass","summary":"why it passes"} or ' +
      '{"type":"fail","summary":"…","errors":[{"id":"ERROR-001","category":"Logic","file":"path","line":12,' +
      '"issue":"what is wrong","found":"the problematic code","expected":"what it should be","fix":"how to fix it"}]}.',
  );
  return sections.join('\n\n');
}

export function fixPrompt(thread: ThreadedContext, errors: ReviewError[], round: number): string {
  return [
    `# Fix required: the reviewer failed your work on step ${thread.step.id} (review round ${round})`,
    reviewErrorsText(errors),
    '# Rules\nFix ALL reported errors. Minimal changes only: no unrelated improvements, no refactoring while fixing.',
    '# When you are done\nAnswer with one JSON object (see the output protocol below): ' +
      '{"type":"success","summary":"the changes you made","artifacts":["files changed"],"key_findings":[]} ' +
      'or, if you cannot fix them, {"type":"failure","error":"what went wrong","cause":"why"}.',
  ].join('\n\n');
}
