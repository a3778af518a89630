import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StepDiff } from '../../src/machines/types.js';
import { PlanHost } from '../../src/host/plan-host.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { ensureStateDir } from '../../src/persistence/state-dir.js';
import { diffCommits } from '../../src/workspace/diff.js';
import { excludedPaths, snapshotCommit, userIndexPath } from '../../src/workspace/snapshot.js';
import type { GitRepository } from '../../src/workspace/support.js';
import { idlePorts } from '../support/idle-ports.js';
import { turn } from '../support/turns.js';
import { initRepo, supported, type tempDirs } from '../workspace/repo.js';

const by = { channel: 'command' as const, at: '2026-01-01T00:00:00.000Z' };
const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output: ['consultPlanner'].includes(id) ? turn(output) : output }) as never;
const lines = (count: number, edit: Record<number, string> = {}) => Array.from({ length: count }, (_, i) => edit[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

/** a.txt's 20 lines, with the lines a plan's steps (or a person) changed. */
export const aText = lines;

/**
 * A git project with a plan that ended: `s1` (coder) changed a.txt line 5 and added new.txt, then `s2`
 * (tester, depends on s1) changed a.txt line 15; each measured as a shared-tree step is, its patch
 * beside the plan file. The user has an uncommitted edit of their own in mine.txt.
 */
export async function endedPlan(dirs: ReturnType<typeof tempDirs>, { end = true }: { end?: boolean } = {}) {
  const dir = initRepo(dirs.make(), { 'a.txt': lines(20), 'mine.txt': 'mine\n' });
  const repo = await supported(dir, dirs.make());
  const store = PlanStore.forProject(dir);
  ensureStateDir(store.dir);
  writeFileSync(join(dir, 'mine.txt'), 'my own uncommitted edit\n');
  const host = new PlanHost({ store, ports: idlePorts, policy: { review_agents: [], verify_turn: false } });
  const planId = host.create({ message: 'two changes' }).getSnapshot().context.plan_id;
  host.send(planId, done('openPlannerSession', { sessionId: 'ses_planner' }));
  host.send(planId, done('consultPlanner', plan));
  host.send(planId, { type: 'approval.approve', ...by });
  const s1 = await step(repo, store, planId, 's1', () => {
    writeFileSync(join(dir, 'a.txt'), lines(20, { 5: 's1 was here' }));
    writeFileSync(join(dir, 'new.txt'), 'added by s1\n');
  });
  host.send(planId, { type: 'step.completed', stepId: 's1', output: { summary: 's1 done', artifacts: [], key_findings: [] }, diff: s1 });
  const s2 = await step(repo, store, planId, 's2', () => writeFileSync(join(dir, 'a.txt'), lines(20, { 5: 's1 was here', 15: 's2 was here' })));
  if (end) host.send(planId, { type: 'step.completed', stepId: 's2', output: { summary: 's2 done', artifacts: [], key_findings: [] }, diff: s2 });
  host.flush(planId);
  await host.dispose();
  return { dir, repo, store, planId };
}

const plan = {
  type: 'plan',
  goal: 'Two changes',
  steps: [
    { id: 's1', agent: 'coder', description: 'line 5 and new.txt', files: ['a.txt', 'new.txt'] },
    { id: 's2', agent: 'tester', description: 'line 15', depends_on: ['s1'], files: ['a.txt'] },
  ],
  assumptions: [],
  risks: [],
  verification: [],
};

/** What `change` did to the user's tree, measured as a shared-tree step's diff is (snapshot before and after). */
async function step(repo: GitRepository, store: PlanStore, planId: string, stepId: string, change: () => void): Promise<StepDiff> {
  const snap = () => snapshotCommit(repo.toplevel, { exclude: excludedPaths(repo.prefix, []), index: userIndexPath(repo) });
  const base = await snap();
  change();
  const result = await snap();
  const patchPath = join(store.dir, `${planId}.patches`, `${stepId}.1.patch`);
  return (await diffCommits(repo, { base, result, where: 'shared', declared: [], patchPath })).diff;
}
