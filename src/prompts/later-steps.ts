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
 * The steps with no dependency either way (they may run before, beside or after this one), so a
 * specialist does not do their work nor count on it: in worktrees the changes of those still running
 * reach neither this step's tree nor its reviewer's (seen with a real model: a tester whose new test
 * failed in its worktree, the fix running beside it). Null when none.
 */
export function besideStepsSection(thread: ThreadedContext): string | null {
  if (!thread.beside?.length) return null;
  const seen = thread.workspace === 'worktree' ? '; in your copy you see the changes only of those finished before your step started' : '';
  return `# Other steps, not this step's work (no dependency either way: they may run at the same time${seen})\n${thread.beside.map((s) => `- ${s.id} (${s.agent}): ${s.description}`).join('\n')}`;
}
