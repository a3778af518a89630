import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyActorRef } from 'xstate';
import { PlanHost, type PlanHostOptions } from '../../src/host/plan-host.js';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { ensureStateDir } from '../../src/persistence/state-dir.js';
import { idlePorts } from '../support/idle-ports.js';
import { turn } from '../support/turns.js';

/** Invoked actors that never settle: the tests deliver invoke outcomes as events. */
export const ports = idlePorts;
/** No reviewer gate: a coder step completes on its specialist's success, as these fixtures deliver it. */
/** No reviewer, and no verifying turn once the steps completed (test/host/verification.test.ts has it): these plans end when their steps do. */
const policy = { review_agents: [], verify_turn: false };
/** The invokes that run model turns resolve with `{ value, usage }`: each costs one test turn here. */
const TURN_ACTORS = new Set(['consultPlanner', 'revisePlan', 'runSpecialist', 'runReview', 'runFix']);
const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output: TURN_ACTORS.has(id) ? turn(output) : output }) as never;
const by = { channel: 'command' as const, at: '2026-01-01T00:00:00.000Z' };

export const twoStepPlan = {
  type: 'plan',
  goal: 'Add a greeting to the home page',
  steps: [
    { id: 's1', agent: 'coder', description: 'write hello.ts', files: ['hello.ts'] },
    { id: 's2', agent: 'tester', description: 'test hello.ts', depends_on: ['s1'] },
  ],
  assumptions: ['node 20'],
  risks: ['flaky snapshot'],
  verification: ['npm test passes'],
};

export interface Project {
  dir: string;
  store: PlanStore;
  host(options?: Pick<PlanHostOptions, 'maxAttempts' | 'concurrency' | 'policy'>): PlanHost;
  /** Releases every host (their writes settled) and removes the project. */
  remove(): Promise<void>;
}

export function tempProject(): Project {
  const dir = mkdtempSync(join(tmpdir(), 'orca-cli-'));
  const store = PlanStore.forProject(dir);
  ensureStateDir(store.dir); // as the plugin makes it
  const hosts: PlanHost[] = [];
  return {
    dir,
    store,
    host: (options = {}) => {
      const host = new PlanHost({ store, ports, ...options, policy: { ...policy, ...options.policy } });
      hosts.push(host);
      return host;
    },
    remove: async () => {
      await Promise.all(hosts.map((h) => h.dispose()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A plan waiting for approval, its host still holding it (dispose the host to release it). */
export function approvalPlan(host: PlanHost, message = 'say hello', callerSessionId?: string): string {
  const planId = host.create({ message, ...(callerSessionId ? { callerSessionId } : {}) }).getSnapshot().context.plan_id;
  host.send(planId, done('openPlannerSession', { sessionId: 'ses_planner' }));
  host.send(planId, done('consultPlanner', twoStepPlan));
  host.flush(planId);
  return planId;
}

const child = (host: PlanHost, planId: string, stepId: string) =>
  host.open(planId).getSnapshot().children[`step:${stepId}`] as AnyActorRef;

/**
 * A plan whose s1 completed (with output) and whose s2 has failed `failures` times and waits at
 * the deviation gate; each failure but the last was answered with Retry and guidance.
 */
export function failedStepPlan(host: PlanHost, failures: number): string {
  const planId = approvalPlan(host);
  host.send(planId, { type: 'approval.approve', text: 'looks good', ...by });
  child(host, planId, 's1').send(done('openSpecialistSession', { sessionId: 'ses_s1' }));
  child(host, planId, 's1').send(
    done('runSpecialist', { type: 'success', summary: 'wrote hello.ts', artifacts: ['hello.ts'], key_findings: ['no router needed'] }),
  );
  for (let i = 1; i <= failures; i++) {
    child(host, planId, 's2').send(done('openSpecialistSession', { sessionId: `ses_s2_${i}` }));
    child(host, planId, 's2').send(done('runSpecialist', { type: 'failure', error: `test ${i} is red` }));
    if (i < failures) host.send(planId, { type: 'deviation.retry', stepId: 's2', text: `try fix ${i}`, ...by });
  }
  host.flush(planId);
  return planId;
}

/** An approved plan whose s1 is running (its specialist's turn in flight), its host still holding it. */
export function runningPlan(host: PlanHost, callerSessionId?: string): string {
  const planId = approvalPlan(host, 'say hello', callerSessionId);
  host.send(planId, { type: 'approval.approve', ...by });
  child(host, planId, 's1').send(done('openSpecialistSession', { sessionId: 'ses_s1' }));
  host.flush(planId);
  return planId;
}

/**
 * A plan paused at its dispatch cap: the host must allow one dispatch (`policy.max_dispatches: 1`),
 * so s1 runs and completes and s2, ready, waits for Continue / Stop.
 */
export function budgetPlan(host: PlanHost): string {
  const planId = approvalPlan(host);
  host.send(planId, { type: 'approval.approve', ...by });
  child(host, planId, 's1').send(done('openSpecialistSession', { sessionId: 'ses_s1' }));
  child(host, planId, 's1').send(done('runSpecialist', { type: 'success', summary: 'wrote hello.ts', artifacts: ['hello.ts'], key_findings: [] }));
  host.flush(planId);
  return planId;
}

/**
 * A plan whose s1 (coder) was in flight when its server stopped and left no result: restored, its
 * port reported the turn interrupted, and the step waits at the resume gate.
 */
export function interruptedPlan(host: PlanHost): string {
  const planId = approvalPlan(host);
  host.send(planId, { type: 'approval.approve', ...by });
  child(host, planId, 's1').send(done('openSpecialistSession', { sessionId: 'ses_s1' }));
  child(host, planId, 's1').send(done('runSpecialist', { type: 'interrupted', session_id: 'ses_s1', detail: 'its turn never finished' }));
  host.flush(planId);
  return planId;
}

/** What s1 of mergePlan changed, by git: one declared file, one it did not declare, a binary one. */
export const s1Diff = {
  files: [
    { path: 'hello.ts', status: 'modified' as const, added: 12, removed: 4 },
    { path: 'notes.md', status: 'added' as const, added: 3, removed: 0 },
    { path: 'logo.png', status: 'added' as const, added: null, removed: null },
  ],
  undeclared: ['notes.md', 'logo.png'],
  patch_path: '/plans/s1.patch',
  base: 'b0',
  result: 'r1',
  where: 'worktree' as const,
};
export const s1Conflict = { path: 'hello.ts', hunks: ['<<<<<<< your tree\nexport const hi = 1;\n=======\nexport const hi = 2;\n>>>>>>> step s1'] };

/**
 * A plan whose s1 (coder) ran in its own worktree (the host's policy must say `workspace:
 * 'worktree'`), completed, and whose changes did not apply to the user's tree: it waits at the
 * merge gate with s1Diff and s1Conflict, its worktree at /wt/s1.
 */
export function mergePlan(host: PlanHost): string {
  const planId = approvalPlan(host);
  host.send(planId, { type: 'approval.approve', ...by });
  child(host, planId, 's1').send(done('openWorkspace', { kind: 'worktree', dir: '/wt/s1', root: '/wt/s1', base: 'b0' }));
  child(host, planId, 's1').send(done('openSpecialistSession', { sessionId: 'ses_s1' }));
  child(host, planId, 's1').send(done('runSpecialist', { type: 'success', summary: 'wrote hello.ts', artifacts: ['hello.ts'], key_findings: [] }));
  child(host, planId, 's1').send(done('measureStep', s1Diff));
  child(host, planId, 's1').send(done('mergeStep', { type: 'conflict', diff: s1Diff, conflicts: [s1Conflict] }));
  host.flush(planId);
  return planId;
}

/** Until the host's writes of the plan have landed: its recorder persists a cascade in a microtask, its writer behind that. */
export async function writesLanded(host: PlanHost, planId: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  await host.settled(planId);
}

/** As if the plan's last change was `days` ago: its file records the time of its last change (`updated_at`). */
export function agePlan(store: PlanStore, planId: string, days: number): void {
  const path = store.pathOf(planId);
  const file = JSON.parse(readFileSync(path, 'utf8'));
  file.updated_at = new Date(Date.now() - days * 86_400_000).toISOString();
  writeFileSync(path, JSON.stringify(file, null, 2));
}

/** Run the CLI in-process; returns its exit code and output. `terminal`: stdout is a terminal that takes colours. */
export async function runCli(argv: string[], env: CliIo['env'] = {}, { terminal = false }: { terminal?: boolean } = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env, now: () => new Date(), tty: terminal, colour: terminal };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}
