import type { ThreadedContext } from '../machines/types.js';

/**
 * The steps that will run after this one and build on it, so a specialist does only its own step and
 * a reviewer does not fail it for work a later step is planned to do (seen with a real model: a
 * review asked the coder for the test the tester's step was about to write). Null when none.
 */
export function laterStepsSection(thread: ThreadedContext): string | null {
  if (!thread.later?.length) return null;
  return `# Steps that build on this one (their work is not this step's)\n${thread.later.map((s) => `- ${s.id} (${s.agent}): ${s.description}`).join('\n')}`;
}

/**
 * The steps with no dependency either way (they may run before, beside or after this one), so a
 * specialist does not do their work nor count on it: in worktrees the changes of those still running
 * reach neither this step's tree nor its reviewer's (seen with a real model: a tester whose new test
 * failed in its worktree, the fix running beside it). Those done when its tree was made are said to
 * be in it (seen: a run again on top told the step that had landed first "may run at the same
 * time"), and a writer that also changes this step's declared files is marked (seen: two coders
 * rewriting one function, neither told of the other). Null when none.
 */
export function besideStepsSection(thread: ThreadedContext): string | null {
  if (!thread.beside?.length) return null;
  const copy = thread.workspace === 'worktree';
  const line = (s: NonNullable<ThreadedContext['beside']>[number]) =>
    `- ${s.id} (${s.agent}): ${s.description}${s.shares ? ` [also changes ${s.shares.join(', ')}]` : ''}`;
  // Outside a worktree the project is live: a step done since is in it too.
  const done = thread.beside.filter((s) => s.landed || (!copy && s.landed_since));
  const since = copy ? thread.beside.filter((s) => s.landed_since && !s.landed) : [];
  const open = thread.beside.filter((s) => !s.landed && !s.landed_since);
  const lines = ['# Other steps, not this step\'s work (no dependency either way)'];
  if (done.length) lines.push(`Done, their changes in ${copy ? 'your copy' : 'the project'}:`, ...done.map(line));
  if (since.length) lines.push("Done since your copy was made, in the user's tree but not in your copy:", ...since.map(line));
  // Not "running": on a Retry the copy is the first attempt's, so one done since is not in it either.
  if (open.length) lines.push(copy ? 'Not in your copy (they may run at the same time, each in its own):' : 'They may run before, beside or after yours:', ...open.map(line));
  if ([...since, ...open].some((s) => s.shares)) {
    lines.push(
      copy
        ? 'Where you and a step marked "also changes" change the same lines, the change that lands second does not apply and waits for a decision: in those files, change only what your step needs.'
        : 'A step marked "also changes" changes those files before or after yours: in them, change only what your step needs.',
    );
  }
  return lines.join('\n');
}
