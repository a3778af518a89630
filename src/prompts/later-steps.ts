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
