import type { VerifyPlanInput } from '../machines/ports.js';

/**
 * What the verifying turn is told (docs/design.md, "Isolation and merge"): every step has landed,
 * the project as it is now is what to check, the plan's own verification list, and what each step
 * did. It checks; it fixes nothing (what it changed would stay in the user's project, and Orca
 * reports any file it changed). What to answer is the output protocol section the turn appends.
 */
export function verifyPrompt(input: Pick<VerifyPlanInput, 'planId' | 'goal' | 'verification' | 'steps'>): string {
  return [
    `# Verification of plan ${input.planId}\nGoal: ${input.goal}`,
    "This turn is not one of the plan's steps: every step has landed in the user's project, your working directory is that project as it is now, with all of the plan's changes in it, and you check the whole. Carry out the plan's verification there:",
    input.verification.map((item) => `- ${item}`).join('\n'),
    '# What each step did\n' + input.steps.map((s) => `- ${s.id} (${s.agent}): ${s.summary || '(no summary)'}`).join('\n'),
    [
      '# How',
      '- Run the commands the items name (tests, a build, a linter) and read what they check; an item that names no command, check by reading the code.',
      '- Change no file: this is a check, not a fix. Whatever you change stays in the user\'s project, and Orca lists every file changed during the verification.',
      '- Answer success when every item holds (key_findings: what you ran and saw for each; artifacts: [], a check makes none), or failure with `error` naming each item that does not hold and what you saw (the failing test, the error line).',
    ].join('\n'),
  ].join('\n\n');
}
