/** What the planner is told of the project's configured checks that fail before its plan. */

/** Lines of a failing check's output the planner reads: its tail, where a test runner names what failed. */
const TAIL_LINES = 12;

/**
 * The configured checks (`verification.commands`) that already fail on the project as it is now,
 * with each one's last lines; null when none fails. Orca runs them again once every step landed and
 * reports a failure that was there before as old, so success criteria need not be written around it.
 */
export function baseFailuresNote(results: ReadonlyArray<{ command: string; passed: boolean; output: string }>): string | null {
  const failing = results.filter((r) => !r.passed);
  if (failing.length === 0) return null;
  return [
    '# Checks that fail before this plan',
    'Orca ran the project\'s configured checks on the project as it is now, before any step. These fail already, so they are not your plan\'s doing; once every step has landed Orca runs them again and reports a failure that was there before as old. Do not plan around them in success criteria, and plan no step to fix them unless the user asked for it.',
    ...failing.map((r) => `- \`${r.command}\`:\n${tail(r.output)}`),
  ].join('\n\n');
}

function tail(output: string): string {
  const lines = output.trimEnd().split('\n');
  const kept = lines.length > TAIL_LINES ? ['…', ...lines.slice(-TAIL_LINES)] : lines;
  return kept.map((line) => `    ${line}`).join('\n');
}
