import { describe, expect, it } from 'vitest';
import { outcomeNote } from '../../src/notices/outcome-note.js';
import type { PlanContext } from '../../src/machines/plan.machine.js';
import { DEFAULT_PLAN_POLICY, type FileChange, type StepRecord } from '../../src/machines/types.js';
import { ZERO_USAGE } from '../../src/machines/usage.js';

const file = (path: string, added: number, removed: number, status: FileChange['status'] = 'modified'): FileChange => ({ path, status, added, removed });
const landedStep = (id: string, agent: StepRecord['agent'], files: FileChange[], more: Partial<StepRecord> = {}): StepRecord => ({
  id,
  agent,
  description: `do ${id}`,
  depends_on: [],
  status: 'completed',
  attempts: 1,
  failures: [],
  output: { summary: `did ${id}`, artifacts: [], key_findings: [] },
  diff: { files, undeclared: [], patch_path: `/p/${id}.patch`, base: 'b', result: 'r', where: 'worktree', landed: { at: '2026-12-06T05:00:00.000Z', patch_path: `/p/${id}.patch` } },
  ...more,
});
const at = (s: number) => new Date(Date.parse('2026-12-06T05:00:00.000Z') + s * 1000).toISOString();
const by = { channel: 'question' as const };

/** The task: a --currency and a --json option for a small CLI, in four steps. */
function context(more: Partial<PlanContext> = {}): PlanContext {
  return {
    plan_id: 'plan_01KXAMPLE0000000000000000',
    request: 'add --currency and --json',
    goal: 'Add a `--currency` and a `--json` option to the weight CLI, with tests and the README',
    proposal: null,
    revisions: [],
    steps: [
      landedStep('currency', 'coder', [file('src/cli.ts', 24, 3), file('src/format.ts', 12, 0)], { review_round: 1 }),
      landedStep('json', 'coder', [file('src/cli.ts', 8, 2), file('src/json.ts', 30, 0, 'added')], { review_round: 2, attempts: 2, failures: [{ attempt: 1, error: 'crashed' }] }),
      landedStep('tests', 'tester', [file('test/cli.test.ts', 40, 0, 'added')]),
      landedStep('readme', 'document-writer', [file('README.md', 15, 1)]),
    ],
    concurrency: 4,
    max_attempts: 10,
    policy: { ...DEFAULT_PLAN_POLICY, review_agents: ['coder'] },
    dispatches: 7,
    dispatch_cap: 100,
    usage: { ...ZERO_USAGE, turns: 9, cost: 0.1234 },
    planner_session_id: 'ses_p',
    caller_session_id: 'ses_me',
    pending_message: null,
    answer: null,
    questions: null,
    decisions: [
      { gate: 'approval', option: 'Approve', at: at(0), ...by },
      { gate: 'deviation', option: 'Retry', step_id: 'json', at: at(60), ...by },
    ],
    planner_error: null,
    outcome: 'completed',
    verification: {
      passed: false,
      where: '/home/me/weight',
      checks: [
        { kind: 'command', name: 'npm test', passed: true, output: 'passed (exit 0)' },
        { kind: 'command', name: 'npm run lint', passed: false, output: 'hook "npm run lint" failed (exit 1) after 2.1 s:\n3 problems', before: { passed: false, output: 'hook "npm run lint" failed (exit 1) after 1.9 s:\n3 problems' } },
        { kind: 'turn', name: "the plan's verification list", passed: true, output: 'both options work' },
      ],
      changed: [],
      at: at(200),
    },
    verification_runs: 1,
    ...more,
  };
}

const completed = (c: PlanContext) => ({ context: c, hasTag: (tag: string) => tag === 'outcome.completed' });
/** Rows a note takes in an 80-column terminal, where the TUI leaves a note about 74 columns: each line wrapped. */
const rows = (text: string) => text.split('\n').reduce((n, line) => n + Math.max(1, Math.ceil([...line].length / 74)), 0);

describe('the outcome note', () => {
  it("should say per step what it landed and how its review went, the verification with its old failure, the totals and where the changes are, in 24 rows at 80 columns", () => {
    const note = outcomeNote(completed(context()));
    expect(note).toBe(
      [
        'Orca: plan plan_01KXAMPLE0000000000000000 completed, 4 of 4 steps done: Add a `--currency` and a `--json` option to the weight CLI, with tests and the README',
        '✓ currency (coder) done · review passed in round 1',
        '    src/cli.ts +24 −3, src/format.ts +12 −0',
        '✓ json (coder) done · review passed in round 2, after 1 fix · retried once',
        '    src/cli.ts +8 −2, src/json.ts +30 −0 (new)',
        '✓ tests (tester) done',
        '    test/cli.test.ts +40 −0 (new)',
        '✓ readme (document-writer) done',
        '    README.md +15 −1',
        'Verification in your project (/home/me/weight): no new failure (1 check fails as before the plan)',
        '    ✓ npm test',
        "    ~ npm run lint (failing before the plan too, not the plan's)",
        "    ✓ the plan's verification list",
        'Total: 5 files changed, +129 −6 · $0.12 · 3 min 20 s',
        'The changes are in your working tree, not committed:',
        '    /orca-diff plan_01KXAMPLE0000000000000000 shows them',
        '    /orca-undo plan_01KXAMPLE0000000000000000 takes them back',
        "Each step's summary and history: orca show plan_01KXAMPLE0000000000000000",
      ].join('\n'),
    );
    expect(rows(note)).toBeLessThanOrEqual(24);
  });

  it('should tell a new failure from an old one, and say one that fails with a failure more now', () => {
    const v = context().verification!;
    const lint = { kind: 'command' as const, name: 'npm run lint', passed: false, before: { passed: false, output: 'src/a.ts\n  3:1  error  x is unused' } };
    const note = outcomeNote(completed(context({ verification: { ...v, checks: [{ ...lint, output: 'src/a.ts\n  3:1  error  x is unused\nsrc/json.ts\n  9:2  error  y is unused' }] } })));
    expect(note).toContain('Verification in your project (/home/me/weight): failed (1 check)');
    expect(note).toContain('    ✗ npm run lint (failing before the plan too, with a failure more now)');
  });

  it('should give a longer plan its step lines first and the files after', () => {
    const many = Array.from({ length: 6 }, (_, i) => landedStep(`s${i + 1}`, 'coder', [file(`src/f${i + 1}.ts`, i + 1, 0)], { review_round: 1 }));
    const lines = outcomeNote(completed(context({ steps: many }))).split('\n');
    expect(lines.slice(1, 7)).toEqual(many.map((s) => `✓ ${s.id} (coder) done · review passed in round 1`));
    expect(lines[7]).toBe('Files:');
    expect(lines.slice(8, 10)).toEqual(['s1:', '    src/f1.ts +1 −0']);
  });

  it('should say without git that nothing was measured, and for a stopped plan which step failed and that nothing was verified', () => {
    const noGit = context({ steps: context().steps.map(({ diff: _d, ...s }) => s), verification: null });
    const note = outcomeNote({ context: { ...noGit, outcome: 'stopped', steps: [noGit.steps[0]!, { ...noGit.steps[1]!, status: 'stopped', failures: [{ attempt: 1, error: 'the `--json` flag clashes with `-j` in parseArgs' }] }] }, hasTag: (t) => t === 'outcome.stopped' });
    // Cut at a word, never inside the code span.
    expect(note).toContain('✗ json (coder) stopped · review round 2 · retried once · the `--json` flag…');
    expect(note).toContain('Verification: not run (the plan stopped before it).');
    expect(note).toContain('No change was measured: no step changed files, or the project is not in a git repository.');
    expect(note).toMatch(/^Total: \$0\.12 · /m);
  });
});
