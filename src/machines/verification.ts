import type { PlanPolicy, PlanProposal, PlanVerification, StepRecord, VerificationCheck } from './types.js';

/**
 * The plan's verification rules (docs/design.md, "Isolation and merge"): what there is to verify,
 * the tree the plan started from, and whether a verification held. A check that failed on the plan's
 * base too, the same way, is an old failure: not the plan's, and by default not a reason to stop.
 */

/** What a plan's verification reads of its context. */
export interface VerificationContext {
  policy: PlanPolicy;
  proposal: PlanProposal | null;
  revisions?: PlanProposal[];
  verification?: PlanVerification | null;
}

/**
 * The plan's own list to check: the proposal's; for a revision that dropped it after its verification
 * failed, the list that failed (a revised plan is verified again, whatever its planner wrote).
 */
export function verificationItems(context: VerificationContext): string[] {
  const own = context.proposal?.verification ?? [];
  if (own.length > 0 || !context.verification || context.verification.passed) return own;
  return [...(context.revisions ?? [])].reverse().find((r) => r.verification.length > 0)?.verification ?? [];
}

/** Something to verify: a configured command, or the plan's own list with the verifying turn on. */
export function hasVerification(context: VerificationContext): boolean {
  return (context.policy.verify_commands?.length ?? 0) > 0 || (context.policy.verify_turn === true && verificationItems(context).length > 0);
}

/**
 * The tree the plan started from: the base of a step that started before any of the plan's changes
 * landed (no dependency, nothing beside it landed first). Null when git measured no such step.
 */
export function planBase(steps: readonly StepRecord[]): string | null {
  const first = steps.find((s) => s.diff && (s.depends_on ?? []).length === 0 && (s.on_top_of ?? []).length === 0);
  return first?.diff?.base ?? null;
}

/** A line that names a failing test or a failure count, as test runners write them (TAP, node --test, jest, vitest, mocha, pytest). */
const FAILED_TEST_LINE = /^(not ok\b|FAIL(ED)?\b|[✗×✕✖]|# fail\b)|\b\d+ (failing|failed)\b/i;

/** A line that says something failed: what two runs of a check are compared on. */
const FAILURE_LINE = /fail|error|✗|×|✕|not ok|assert|panic|exception/i;

/**
 * A line without what differs between two runs of the same failure: numbers (durations, counts,
 * line numbers), long hex ids and whitespace. The port says the run directory the same way in both.
 */
const normalized = (line: string) =>
  line
    .toLowerCase()
    .replace(/\b[0-9a-f]{8,}\b/g, '#')
    .replace(/\d+(\.\d+)?/g, '#')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * Lines of a check's output that say what failed (at most `max`): the failing tests' names when a
 * test runner wrote them, else any line that speaks of a failure, else its last lines. What a turn is
 * told of a check that failed before the plan.
 */
export function failureLines(output: string, max = 6): string[] {
  // The first line of a command check is Orca's own ("… failed (exit 1) after 0.3 s:").
  const lines = output.split('\n').slice(1).map((line) => line.trim()).filter(Boolean);
  const tests = lines.filter((line) => FAILED_TEST_LINE.test(line));
  const failing = lines.filter((line) => FAILURE_LINE.test(line));
  return (tests.length > 0 ? tests : failing.length > 0 ? failing : lines.slice(-max)).slice(0, max);
}

/**
 * Whether a check failed now as it failed before: every line of its output that names a failing test
 * (or, from a tool that names none, says something failed) was there before, numbers aside. A test
 * the plan added changes counts, not those lines; a test the plan broke adds one. With no such line
 * in either, the whole outputs are compared.
 */
export function failsAsBefore(now: string, before: string): boolean {
  // The failing tests' lines when a test runner wrote them: a passing test named "prints an error" is no failure.
  const named = (output: string) => output.split('\n').filter((line) => FAILED_TEST_LINE.test(line.trim()));
  const pick = (output: string) => (named(now).length + named(before).length > 0 ? named(output) : output.split('\n').filter((line) => FAILURE_LINE.test(line)));
  const lines = (output: string) => pick(output).map(normalized);
  const [seen, known] = [lines(now), lines(before)];
  if (seen.length === 0 && known.length === 0) return normalized(now) === normalized(before);
  const earlier = new Set(known);
  return seen.every((line) => earlier.has(line));
}

/**
 * How a check did: `passed`; `old`, failed on the plan's base too, as it fails now (failsAsBefore:
 * not the plan's); `new`, failed now and not before, or with a failure more (the plan may have
 * broken more of it), or nothing says how it did before.
 */
export type CheckVerdict = 'passed' | 'old' | 'new';

export function checkVerdict(check: VerificationCheck): CheckVerdict {
  if (check.passed) return 'passed';
  const before = check.before;
  return before && !before.passed && failsAsBefore(check.output, before.output) ? 'old' : 'new';
}

/**
 * Whether the verification held: every check passed, or failed before the plan too (unless the
 * policy says old failures stop the plan as well: `verification.old_failures: "gate"`).
 */
export function verificationHeld(verification: PlanVerification, policy: Pick<PlanPolicy, 'verify_old_failures'>): boolean {
  return verification.checks.every((check) => {
    const verdict = checkVerdict(check);
    return verdict === 'passed' || (verdict === 'old' && policy.verify_old_failures !== 'gate');
  });
}
