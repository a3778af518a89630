import type { FailingCheck } from '../machines/types.js';
import { failureLines } from '../machines/verification.js';

/**
 * What the turns of a plan are told of the project's configured checks (`verification.commands`)
 * that already fail before the plan began (docs/gates.md, "What failed before the plan"): the planner
 * while it drafts, then each step's specialist and reviewer and the verifying turn, so none takes an
 * old failure for its own doing or plans around it.
 */

/** The checks that failed, each with the lines of its output that say what failed. */
export function failingChecks(results: ReadonlyArray<{ command: string; passed: boolean; output: string }>): FailingCheck[] {
  return results.filter((r) => !r.passed).map((r) => ({ command: r.command, lines: failureLines(r.output) }));
}

const HEADING = '# Checks that fail before this plan';

const list = (checks: readonly FailingCheck[]) => checks.map((c) => `- \`${c.command}\`:\n${c.lines.map((line) => `    ${line}`).join('\n')}`).join('\n');

/** For the planner, while it drafts; null when none fails. */
export function plannerFailuresNote(checks: readonly FailingCheck[]): string | null {
  if (checks.length === 0) return null;
  return [
    HEADING,
    "Orca ran the project's configured checks on the project as it is now, before any step. These fail already, so they are not your plan's doing:",
    list(checks),
    'Once every step has landed Orca runs them again and tells a failure that was there before from a new one, and every step and the verification are told of these: a success criterion may name the check ("npm test passes" then means no failure beyond these). Plan no step to fix them unless the user asked for it.',
  ].join('\n');
}

/** For a step's specialist or reviewer, and for the verifying turn: a section of its prompt; null when none fails. */
export function failingBeforeSection(checks: readonly FailingCheck[] | undefined, who: 'step' | 'verification'): string | null {
  if (!checks?.length) return null;
  const what =
    who === 'step'
      ? 'They are not yours to fix unless your step says so; where these checks are run, expect these failures, and report any other.'
      : "An item holds when nothing fails beyond these: they are not the plan's. Name the old failures you saw in key_findings.";
  return [HEADING, 'These failed on the project before the plan began, not because of any step:', list(checks), what].join('\n');
}
