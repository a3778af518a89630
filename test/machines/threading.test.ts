import { describe, expect, it } from 'vitest';
import { EDIT_TOOLS, ROLE_TOOLS } from '../../src/agents/roles.js';
import { readySteps, stepInput, threadContext, worktreesWanted, WRITING_AGENTS } from '../../src/machines/threading.js';
import { stepWaves } from '../../src/machines/step-graph.js';
import { withRetrying, withRunning } from '../../src/machines/step-records.js';
import { DEFAULT_PLAN_POLICY, SPECIALISTS, type StepRecord } from '../../src/machines/types.js';
import { replay } from '../support/model-coverage.js';
import { by, done, idlePlanMachine } from './fixtures.js';

const step = (id: string, extra: Partial<StepRecord> = {}): StepRecord => ({
  id,
  agent: 'coder',
  description: `do ${id}`,
  depends_on: [],
  status: 'pending',
  attempts: 0,
  failures: [],
  ...extra,
});
const out = (summary: string, artifacts: string[] = []) => ({ summary, artifacts, key_findings: [`${summary}!`] });

describe('readySteps', () => {
  it('should start every ready step up to the concurrency', () => {
    const steps = [step('a', { files: ['a.ts'] }), step('b', { files: ['b.ts'] }), step('c', { files: ['c.ts'] }), step('d', { depends_on: ['a'] })];
    expect(readySteps(steps, 1).map((s) => s.id)).toEqual(['a']);
    expect(readySteps(steps, 2).map((s) => s.id)).toEqual(['a', 'b']);
    expect(readySteps(steps, 8).map((s) => s.id)).toEqual(['a', 'b', 'c']);
  });

  it('should count running and waiting steps against the concurrency', () => {
    const steps = [step('a', { status: 'running', agent: 'researcher' }), step('b', { status: 'awaiting_decision', agent: 'researcher' }), step('c')];
    expect(readySteps(steps, 2)).toEqual([]);
    expect(readySteps(steps, 3).map((s) => s.id)).toEqual(['c']);
  });

  it('should wait for every dependency to complete', () => {
    const steps = [step('a', { status: 'completed' }), step('b', { status: 'running' }), step('c', { depends_on: ['a', 'b'] })];
    expect(readySteps(steps, 4)).toEqual([]);
  });

  it('should never run two steps whose declared files overlap', () => {
    const steps = [step('a', { files: ['x.ts'] }), step('b', { files: ['y.ts', 'x.ts'] }), step('c', { files: ['z.ts'] })];
    expect(readySteps(steps, 4).map((s) => s.id)).toEqual(['a', 'c']);
    expect(readySteps([{ ...steps[0]!, status: 'running' }, steps[1]!], 4)).toEqual([]);
  });

  it('should keep two file-changing steps apart unless both declared disjoint files', () => {
    const coder = step('a');
    expect(readySteps([coder, step('b', { agent: 'document-writer' })], 4).map((s) => s.id)).toEqual(['a']);
    expect(readySteps([coder, step('b', { agent: 'tester', files: ['t.ts'] })], 4).map((s) => s.id)).toEqual(['a']);
    expect(readySteps([step('a', { files: ['a.ts'] }), step('b', { agent: 'tester', files: ['t.ts'] })], 4).map((s) => s.id)).toEqual(['a', 'b']);
    // Read-only specialists run beside anything.
    expect(readySteps([coder, step('r', { agent: 'researcher' }), step('v', { agent: 'architect' })], 4).map((s) => s.id)).toEqual(['a', 'r', 'v']);
  });

  it('should let a step that changes no file run beside one that writes a file it reads (issue: a reader waited for a coder)', () => {
    const coder = step('a', { files: ['src/a.ts'] });
    const writer = step('d', { agent: 'document-writer', files: ['README.md', 'src/a.ts'] });
    expect(readySteps([coder, step('r', { agent: 'researcher', files: ['src/a.ts'] }), step('v', { agent: 'architect', files: ['src/a.ts'] })], 4).map((s) => s.id)).toEqual(['a', 'r', 'v']);
    // Two writers on one shared tree still wait for each other.
    expect(readySteps([coder, writer], 4).map((s) => s.id)).toEqual(['a']);
  });

  it('should run file-changing steps side by side when each has its own worktree: clashes show when they land', () => {
    const steps = [step('a', { files: ['x.ts'] }), step('b', { files: ['x.ts'] }), step('c'), step('d', { agent: 'tester' })];
    expect(readySteps(steps, 4, 'worktree').map((s) => s.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(readySteps(steps, 4, 'shared').map((s) => s.id)).toEqual(['a']);
    expect(readySteps(steps, 2, 'worktree').map((s) => s.id)).toEqual(['a', 'b']);
  });

  it('should treat exactly the specialists whose role can edit files as writers', () => {
    const editing = SPECIALISTS.filter((a) => ROLE_TOOLS[a].some((t) => EDIT_TOOLS.includes(t as never)));
    expect([...WRITING_AGENTS].sort()).toEqual([...editing].sort());
  });
});

describe('threadContext', () => {
  const plan = {
    plan_id: 'plan_X',
    goal: 'ship',
    relevant_files: ['package.json'],
    steps: [
      step('a', { status: 'completed', output: out('made a.ts', ['a.ts']) }),
      step('b', { status: 'completed', output: out('made b.ts', ['b.ts']) }),
      step('c', { depends_on: ['a'], files: ['c.ts'], failures: [{ attempt: 1, error: 'red', guidance: 'use vitest' }] }),
    ],
  };

  it("should give a step its dependencies' outputs and nothing from other steps", () => {
    const thread = threadContext(plan, 'c');
    expect(thread.dependencies).toEqual([{ id: 'a', agent: 'coder', output: out('made a.ts', ['a.ts']) }]);
    expect(JSON.stringify(thread)).not.toContain('made b.ts');
  });

  it("should accumulate the plan's files, the step's files and its dependencies' artifacts", () => {
    expect(threadContext(plan, 'c').relevant_files).toEqual(['package.json', 'c.ts', 'a.ts']);
  });

  it('should carry the failed attempts with the human guidance', () => {
    expect(threadContext(plan, 'c').previous_attempts).toEqual([{ attempt: 1, error: 'red', guidance: 'use vitest' }]);
  });

  it('should name the steps that build on this one, at most five, their descriptions cut', () => {
    expect(threadContext(plan, 'a').later).toEqual([{ id: 'c', agent: 'coder', description: 'do c' }]);
    expect(threadContext(plan, 'c').later).toEqual([]);
    const fan = { ...plan, steps: [step('root'), ...Array.from({ length: 7 }, (_, i) => step(`t${i}`, { depends_on: ['root'], description: 'x'.repeat(500) }))] };
    const later = threadContext(fan, 'root').later!;
    expect(later.map((s) => s.id)).toEqual(['t0', 't1', 't2', 't3', 't4']);
    expect(later[0]!.description).toHaveLength(200);
  });

  it('should name the steps with no dependency either way (whatever their status: the viewer renders the same prompt later), and tell a worktree step where it works', () => {
    const steps = [
      step('a', { status: 'completed' }),
      step('b', { depends_on: ['a'] }),
      step('c', { depends_on: ['b'] }),
      step('d', { agent: 'tester' }),
      step('e', { agent: 'document-writer', depends_on: ['d'] }),
      step('f', { status: 'completed' }),
    ];
    const plan = { plan_id: 'plan_X', goal: 'g', relevant_files: [], steps };
    expect(threadContext(plan, 'b').beside?.map((s) => s.id)).toEqual(['d', 'e', 'f']);
    expect(threadContext(plan, 'e').beside?.map((s) => s.id)).toEqual(['a', 'b', 'c', 'f']);
    expect(threadContext({ ...plan, steps: steps.slice(0, 3) }, 'b').beside).toBeUndefined();
    expect(threadContext({ ...plan, workspace: 'worktree' }, 'b').workspace).toBe('worktree');
    // A step that changes no file has no tree of its own.
    expect(threadContext({ ...plan, steps: [...steps, step('r', { agent: 'researcher' })], workspace: 'worktree' }, 'r').workspace).toBeUndefined();
    const input = stepInput({ plan_id: 'plan_X', request: 'r', goal: 'g', proposal: null, steps, max_attempts: 3, caller_session_id: null, policy: { ...DEFAULT_PLAN_POLICY, workspace: 'worktree' } }, steps[1]!);
    expect(input.thread.workspace).toBe('worktree');
    expect(input.policy.workspace).toBe('worktree');
  });

  it('should say which steps beside are in its tree and which change the files it declares, those first (issue 35.2)', () => {
    const steps = [
      step('docs', { agent: 'document-writer', files: ['README.md'] }),
      step('verbose', { files: ['src/cli.js'], status: 'completed' }),
      step('help', { files: ['src/cli.js', 'src/usage.js'] }),
      step('research', { agent: 'researcher', files: ['src/cli.js'] }),
    ];
    const plan = { plan_id: 'plan_X', goal: 'g', relevant_files: [], steps, workspace: 'worktree' as const };
    // Before it starts: the completed ones will be in the tree made for it; a reader shares no change.
    expect(threadContext(plan, 'help').beside).toEqual([
      { id: 'verbose', agent: 'coder', description: 'do verbose', landed: true, shares: ['src/cli.js'] },
      { id: 'docs', agent: 'document-writer', description: 'do docs' },
      { id: 'research', agent: 'researcher', description: 'do research' },
    ]);
    // Once started, what was recorded when its tree was made, whatever completed since.
    const running = steps.map((s) => (s.id === 'help' ? { ...s, status: 'running' as const } : s.id === 'docs' ? { ...s, status: 'completed' as const } : s));
    expect(threadContext({ ...plan, steps: running }, 'help').beside?.filter((s) => s.landed)).toEqual([]);
    expect(threadContext({ ...plan, steps: running.map((s) => (s.id === 'help' ? { ...s, on_top_of: ['verbose'] } : s)) }, 'help').beside?.filter((s) => s.landed).map((s) => s.id)).toEqual(['verbose']);
  });

  it('should say, from the plan file, which steps beside landed after its tree was made and before a Retry went on in it (the viewer renders the prompt the model got)', () => {
    const steps = [
      step('impl', { files: ['src/a.ts'], status: 'completed' }),
      step('docs', { agent: 'document-writer', files: ['README.md'] }),
      step('test', { agent: 'tester', status: 'awaiting_decision', attempts: 1, on_top_of: ['impl'] }),
    ];
    // docs completes while test waits at its gate; Retry goes on in test's first tree.
    const landed = steps.map((s) => (s.id === 'docs' ? { ...s, status: 'completed' as const } : s));
    const retried = withRetrying(landed, 'test');
    expect(retried.find((s) => s.id === 'test')).toMatchObject({ status: 'running', on_top_of: ['impl'], landed_since: ['docs'] });
    const plan = { plan_id: 'plan_X', goal: 'g', relevant_files: [], steps: retried };
    expect(threadContext(plan, 'test').beside).toEqual([
      { id: 'impl', agent: 'coder', description: 'do impl', landed: true },
      { id: 'docs', agent: 'document-writer', description: 'do docs', landed_since: true },
    ]);
    // A second Retry keeps what landed since; a new tree (Run again on top, or a new start) clears it.
    expect(withRetrying(retried, 'test').find((s) => s.id === 'test')!.landed_since).toEqual(['docs']);
    expect(withRunning(retried, [retried[2]!]).find((s) => s.id === 'test')).not.toHaveProperty('landed_since');
  });

  it("should tell a step that a dependency's change was changed since, on top of it, by a step that changed the same files", () => {
    const diff = (path: string) => ({ files: [{ path, status: 'modified' as const, added: 1, removed: 1 }], undeclared: [], patch_path: null, base: 'b', result: 'r', where: 'worktree' as const });
    const steps = [
      step('a', { status: 'completed', output: out('A'), diff: diff('src/cli.js') }),
      step('b', { status: 'completed', output: out('B'), diff: diff('src/cli.js'), on_top_of: ['a'] }),
      step('c', { status: 'completed', output: out('C'), diff: diff('src/cli.js') }),
      step('t', { agent: 'tester', depends_on: ['a', 'b', 'c'] }),
    ];
    const deps = threadContext({ plan_id: 'plan_X', goal: 'g', relevant_files: [], steps }, 't').dependencies;
    expect(deps.map((d) => [d.id, d.changed_after])).toEqual([
      ['a', [{ id: 'b', agent: 'coder', files: ['src/cli.js'] }]],
      ['b', undefined],
      // c ran beside a and b without either in its tree: their changes merged, nobody rewrote c's.
      ['c', undefined],
    ]);
    // A step that depends on another changed files on top of it too.
    const chain = [step('a', steps[0]!), step('b', { ...steps[1]!, on_top_of: undefined, depends_on: ['a'] }), step('t', { agent: 'tester', depends_on: ['a', 'b'] })];
    expect(threadContext({ plan_id: 'plan_X', goal: 'g', relevant_files: [], steps: chain }, 't').dependencies[0]!.changed_after).toEqual([{ id: 'b', agent: 'coder', files: ['src/cli.js'] }]);
  });

  it('should refuse an unknown step', () => {
    expect(() => threadContext(plan, 'zz')).toThrow(/Unknown step "zz"/);
  });
});

describe('plan machine concurrency', () => {
  it('should spawn two step actors at once when concurrency is 2', () => {
    const plan = {
      type: 'plan',
      goal: 'g',
      steps: [
        { id: 'a', agent: 'coder', description: 'a', files: ['a.ts'] },
        { id: 'b', agent: 'tester', description: 'b', files: ['a.test.ts'] },
        { id: 'c', agent: 'coder', description: 'c', depends_on: ['a', 'b'] },
      ],
      assumptions: [],
      risks: [],
      verification: [],
    };
    const { snapshot } = replay(idlePlanMachine, { planId: 'plan_X', message: 'm', concurrency: 2 }, [
      done('openPlannerSession', { sessionId: 'ses_p' }),
      done('consultPlanner', plan),
      { type: 'approval.approve', ...by },
    ]);
    expect(snapshot.context.steps.map((s: { status: string }) => s.status)).toEqual(['running', 'running', 'pending']);
  });
});

describe('stepWaves', () => {
  it('should group the steps that can start together, each wave after the ones it depends on, in the plan order', () => {
    const steps = [step('docs', { depends_on: ['fix', 'add'] }), step('fix'), step('add'), step('tests', { depends_on: ['add'] }), step('last', { depends_on: ['docs'] })];
    expect(stepWaves(steps)).toEqual([['fix', 'add'], ['docs', 'tests'], ['last']]);
    expect(stepWaves([step('a', { depends_on: ['gone'] })])).toEqual([['a']]);
    expect(stepWaves([])).toEqual([]);
  });
});

describe('worktreesWanted', () => {
  const policy = { ...DEFAULT_PLAN_POLICY, workspace: 'worktree' as const };

  it('should want one while there is no plan yet, and none without worktrees', () => {
    expect(worktreesWanted({ steps: [], concurrency: 4, policy })).toBe(1);
    expect(worktreesWanted({ steps: [step('a')], concurrency: 4, policy: { ...policy, workspace: 'shared' } })).toBe(0);
  });

  it("should count the file-changing steps that start first, within the plan's concurrency", () => {
    const steps = [step('a'), step('b'), step('r', { agent: 'researcher' }), step('c', { depends_on: ['a'] }), step('d'), step('e')];
    expect(worktreesWanted({ steps, concurrency: 4, policy })).toBe(3);
    expect(worktreesWanted({ steps, concurrency: 2, policy })).toBe(2);
  });
});
