import { describe, expect, it } from 'vitest';
import { reviewPrompt } from '../../src/prompts/review-prompt.js';
import { diffSection, REVIEW_PATCH_MAX } from '../../src/prompts/step-diff.js';
import type { StepDiff, ThreadedContext } from '../../src/machines/types.js';

const thread: ThreadedContext = {
  plan_id: 'plan_X',
  goal: 'greet',
  step: { id: 's1', agent: 'coder', description: 'add hello', depends_on: [], files: ['src/a.ts'], success: 'npm test passes' },
  dependencies: [],
  relevant_files: [],
  previous_attempts: [],
};
const work = { summary: 'added hello', artifacts: ['src/a.ts'], key_findings: [] };
const diff: StepDiff = {
  files: [
    { path: 'src/a.ts', status: 'modified', added: 10, removed: 2 },
    { path: 'src/c.txt', status: 'added', added: 1, removed: 0 },
    { path: 'logo.png', status: 'added', added: null, removed: null },
  ],
  undeclared: ['src/c.txt', 'logo.png'],
  patch_path: '/p/plan_X.patches/s1.patch',
  base: 'b0',
  result: 'r1',
  where: 'worktree',
};
const patch = 'diff --git a/src/a.ts b/src/a.ts\n+export const hello = () => "hi";\n';

describe("the reviewer judges the step's real diff", () => {
  it('should list every changed file with its counts and flag the ones the step did not declare', () => {
    const text = diffSection(diff, patch);
    expect(text).toContain('3 files +11 −2:');
    expect(text).toContain('- src/a.ts (modified, +10 −2)\n');
    expect(text).toContain("- src/c.txt (added, +1 −0) — NOT DECLARED in the step's files");
    expect(text).toContain('- logo.png (added, binary) — NOT DECLARED');
    expect(text).toContain("Changed outside the step's declared files: src/c.txt, logo.png.");
    expect(text).toContain("```diff\n" + patch + '```');
    expect(text).toContain("the step's own worktree");
  });

  it('should say that a shared tree may hold the changes of a step running beside it, and that nothing changed', () => {
    const text = diffSection({ ...diff, files: [], undeclared: [], where: 'shared' }, null);
    expect(text).toContain('a step running beside it may have changed some of these files too');
    expect(text).toContain('Nothing: git finds no file changed.');
    expect(text).not.toContain('```');
  });

  it('should cut a long patch and say where the whole one is, with a fence no backtick run in it can close', () => {
    const long = '+```\n'.repeat(REVIEW_PATCH_MAX);
    const text = diffSection(diff, long);
    expect(text).toContain(`(the patch is cut at ${REVIEW_PATCH_MAX} characters of ${long.length}; read the changed files for the rest, or /p/plan_X.patches/s1.patch)`);
    expect(text).toContain('````diff\n');
    expect(text.length).toBeLessThan(REVIEW_PATCH_MAX + 2000);
  });

  it("should put the diff in the review prompt and let the reviewer run checks only in the step's worktree", () => {
    const isolated = reviewPrompt(thread, work, 1, 3, { diff, patch });
    expect(isolated).toContain('# What really changed');
    expect(isolated).toContain('if the success criteria name a check (tests, a linter), run it');
    const shared = reviewPrompt(thread, work, 1, 3, { diff: { ...diff, where: 'shared' }, patch });
    expect(shared).toContain('# What really changed');
    expect(shared).not.toContain('success criteria name a check');
    const unmeasured = reviewPrompt(thread, work, 1, 3);
    expect(unmeasured).not.toContain('What really changed');
    expect(unmeasured).toContain('Read the changed files.');
  });
});
