import type { ThreadedContext } from '../machines/types.js';

/**
 * The steps that will run after this one and build on it, so a specialist does only its own step and
 * a reviewer does not fail it for work a later step is planned to do (seen with a real model: a
 * review asked the coder for the test the tester's step was about to write). Null when none.
 */
export function laterStepsSection(thread: ThreadedContext): string | null {
  if (!thread.later?.length) return null;
  return `# Later steps of the plan (their work is not this step's)\n${thread.later.map((s) => `- ${s.id} (${s.agent}): ${s.description}`).join('\n')}`;
}

/**
 * The steps that may run at the same time as this one (no dependency either way), so a specialist
 * does not do their work nor expect to see it: in worktrees their changes reach neither this step's
 * tree nor its reviewer's (seen with a real model: a tester whose new test failed in its worktree,
 * the fix running beside it). Null when none.
 */
export function besideStepsSection(thread: ThreadedContext): string | null {
  if (!thread.beside?.length) return null;
  const seen = thread.workspace === 'worktree' ? ', in copies of their own: their changes are not in your tree' : '';
  return `# Steps that may run at the same time (not this step's work${seen})\n${thread.beside.map((s) => `- ${s.id} (${s.agent}): ${s.description}`).join('\n')}`;
}
