import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { specialistTurnPrompt } from '../../src/prompts/step-prompt.js';
import { threadContext } from '../../src/machines/threading.js';
import { readPlan, readPlanJournal, type PlanRead } from '../../src/ui/plan-source.js';
import { planListView } from '../../src/ui/plan-list-view.js';
import { planView } from '../../src/ui/plan-view.js';
import { approvalPlan, budgetPlan, failedStepPlan, mergePlan, runningPlan, tempProject, type Project } from '../cli/fixtures.js';
import { turn } from '../support/turns.js';
import type { QueuedDecision } from '../../src/decisions/running-server.js';
import { twoInterruptedPlan } from '../support/parallel-plans.js';

let project: Project;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.remove());

/** A plan made by a real host, released, then read back as the viewer reads it. */
function released(make: (host: ReturnType<Project['host']>) => string, options: Parameters<Project['host']>[0] = {}) {
  const host = project.host(options);
  const planId = make(host);
  host.dispose();
  return planId;
}
function read(planId: string): PlanRead {
  const result = readPlan(project.store.dir, planId);
  if (!result.ok) throw new Error(`expected ${planId} to load: ${JSON.stringify(result)}`);
  return result.plan;
}
/** Add fields to the plan file as a newer writer would (usage, revisions). */
function patchFile(planId: string, patch: (raw: any) => void) {
  const path = project.store.pathOf(planId);
  const raw = JSON.parse(readFileSync(path, 'utf8'));
  patch(raw);
  writeFileSync(path, JSON.stringify(raw));
}
const view = (planId: string, queued: QueuedDecision[] = []) => planView(read(planId), readPlanJournal(project.store.dir, planId), queued);

describe('the plan page data', () => {
  it('should draw every step as a node coloured by its state, dependencies as edges, left to right', () => {
    const planId = released((h) => failedStepPlan(h, 2));
    const { graph, progress, status, waiting_for } = view(planId);
    expect([status, waiting_for]).toEqual(['in_progress', 'deviation']);
    expect(graph.nodes.map(({ id, agent, status: s, attempts }) => ({ id, agent, status: s, attempts }))).toEqual([
      { id: 's1', agent: 'coder', status: 'completed', attempts: 1 },
      { id: 's2', agent: 'tester', status: 'awaiting_decision', attempts: 2 },
    ]);
    const [s1, s2] = graph.nodes;
    expect(s2!.x).toBeGreaterThanOrEqual(s1!.x + s1!.width);
    expect(graph.edges).toEqual([{ from: 's1', to: 's2', points: expect.arrayContaining([expect.objectContaining({ x: expect.any(Number) })]) }]);
    expect(graph.width).toBeGreaterThanOrEqual(s2!.x + s2!.width);
    expect(progress).toEqual({ total: 2, completed: 1, running: [], awaiting_decision: ['s2'], stopped: 0, pending: 0 });
  });

  it("should show a step's output, failures with the human's guidance, and what fed its prompt", () => {
    const planId = released((h) => failedStepPlan(h, 2));
    const { steps } = view(planId);
    expect(steps[0]).toMatchObject({ id: 's1', output: { summary: 'wrote hello.ts', artifacts: ['hello.ts'], key_findings: ['no router needed'] }, failures: [] });
    const s2 = steps[1]!;
    expect(s2.failures).toEqual([
      { attempt: 1, error: 'test 1 is red', what: 'the specialist reported failure', guidance: 'try fix 1' },
      { attempt: 2, error: 'test 2 is red', what: 'the specialist reported failure' },
    ]);
    expect(s2.fed_by.steps).toEqual([{ id: 's1', agent: 'coder', has_output: true }]);
    expect(s2.fed_by.files).toEqual(['hello.ts']);
    // The same prompt the plugin sends for this step's next attempt (src/prompts/step-prompt.ts), sized.
    const prompt = specialistTurnPrompt(threadContext(read(planId).file, 's2'), 3);
    expect(prompt.split('\n')[0]).toBe(`Orca · ${planId} · step s2 (tester) · attempt 3`);
    expect(prompt).toContain('test 2 is red');
    expect([s2.fed_by.prompt_chars, s2.fed_by.prompt_bytes]).toEqual([prompt.length, Buffer.byteLength(prompt)]);
    expect(steps[0]!.fed_by).toMatchObject({ steps: [], missing: [], files: ['hello.ts'] });
    expect(steps[0]!.fed_by.prompt_chars).toBeLessThan(s2.fed_by.prompt_chars);
  });

  it('should offer the options of the approval gate with the orca decide choice each posts', () => {
    const planId = released(approvalPlan);
    expect(view(planId).gates).toEqual([
      {
        kind: 'approval',
        title: 'The plan waits for approval',
        detail: ['2 step(s) proposed for: Add a greeting to the home page'],
        options: [
          { label: 'Approve', choice: 'approve', needs_text: false },
          { label: 'Request Changes', choice: 'changes', needs_text: true },
          { label: 'Reject', choice: 'reject', needs_text: false },
        ],
      },
    ]);
  });

  it('should offer Retry / Replan / Stop for a failed step, and drop Retry at the attempt limit', () => {
    const open = released((h) => failedStepPlan(h, 1));
    expect(view(open).gates).toMatchObject([{ kind: 'deviation', step_id: 's2', options: [{ choice: 'retry' }, { choice: 'replan' }, { choice: 'stop' }] }]);
    const spent = released((h) => failedStepPlan(h, 2), { maxAttempts: 2 });
    expect(view(spent).gates[0]!.options.map((o) => o.label)).toEqual(['Replan', 'Stop']);
  });

  it("should offer Run again on top / Resolved by hand / Stop for a step whose changes did not apply, with its conflicts and its real diff", () => {
    const planId = released(mergePlan, { policy: { workspace: 'worktree' } });
    const { gates, steps } = view(planId);
    expect(gates).toEqual([
      {
        kind: 'merge',
        step_id: 's1',
        title: 'Step s1 (coder): its changes did not apply to your working tree',
        detail: [
          'Attempt 1: conflicts in hello.ts. Your tree is as it was.',
          'The step changed 3 files +15 −4, 2 not declared.',
          'To take its changes by hand, then choose Resolved by hand: its worktree /wt/s1, its patch /plans/s1.patch.',
        ],
        conflicts: [{ path: 'hello.ts', hunks: ['<<<<<<< your tree\nexport const hi = 1;\n=======\nexport const hi = 2;\n>>>>>>> step s1'] }],
        options: [
          { label: 'Run again on top', choice: 'ontop', needs_text: false },
          { label: 'Resolved by hand', choice: 'resolved', needs_text: false },
          { label: 'Stop', choice: 'stop', needs_text: false },
        ],
      },
    ]);
    expect(steps[0]!.changes).toEqual({
      summary: '3 files +15 −4, 2 not declared',
      files: [
        { path: 'hello.ts', status: 'modified', added: 12, removed: 4, undeclared: false },
        { path: 'notes.md', status: 'added', added: 3, removed: 0, undeclared: true },
        { path: 'logo.png', status: 'added', added: null, removed: null, undeclared: true },
      ],
      patch_path: '/plans/s1.patch',
    });
    expect(steps[0]!.conflicts).toEqual(gates[0]!.conflicts);
    expect(steps[1]!.changes).toBeUndefined();
    // A diff measured in the shared tree says so.
    patchFile(planId, (raw) => (raw.steps[0].diff.where = 'shared'));
    expect(view(planId).steps[0]!.changes!.note).toBe('shared tree: may include changes of steps running beside it');
  });

  it('should offer Continue / Stop at the dispatch cap, and the failed step behind it', () => {
    const capped = released(budgetPlan, { policy: { max_dispatches: 1 } });
    expect(view(capped).gates).toMatchObject([{ kind: 'budget', options: [{ choice: 'continue' }, { choice: 'stop' }], detail: ['1 of 1 dispatches used; Continue allows 1 more.', '1/2 steps completed.'] }]);
    // Named by the limit it reached: a money or token budget is not "the dispatch cap" (issue 35.2).
    expect(view(capped).gates[0]!.title).toBe('The plan paused at the dispatch cap (1 of 1)');
    const both = released((h) => failedStepPlan(h, 1), { policy: { max_dispatches: 2 } });
    expect(view(both).gates.map((g) => [g.kind, g.step_id])).toEqual([['budget', undefined], ['deviation', 's2']]);
    expect(view(both).dispatches).toEqual({ used: 2, cap: 2 });
  });

  it("should wait with the buttons of a gate whose decision is queued, and only of that gate: another step's is another gate", () => {
    const planId = released(twoInterruptedPlan);
    const queued = (type: string, stepId?: string) => ({ words: `${type} posted 2026-01-01T00:00:00.000Z`, event: { type, ...(stepId ? { stepId } : {}) } });
    expect(view(planId).gates.map((g) => [g.kind, g.step_id, g.queued])).toEqual([
      ['resume', 'a', undefined],
      ['resume', 'b', undefined],
    ]);
    // Re-run posted for a: a's gate waits for it; b's still takes a decision.
    const { gates, queued: words } = view(planId, [queued('resume.rerun', 'a')]);
    expect(gates.map((g) => [g.step_id, g.queued])).toEqual([
      ['a', 'resume.rerun posted 2026-01-01T00:00:00.000Z'],
      ['b', undefined],
    ]);
    expect(words).toEqual(['resume.rerun posted 2026-01-01T00:00:00.000Z']);
    // A decision of another kind names no open gate; one for each step waits at both.
    expect(view(planId, [queued('merge.resolved', 'a')]).gates.map((g) => g.queued)).toEqual([undefined, undefined]);
    expect(view(planId, [queued('resume.rerun', 'b'), queued('resume.stop', 'a')]).gates.map((g) => g.queued?.split(' ')[0])).toEqual(['resume.stop', 'resume.rerun']);
  });

  it("should show a planner's question without buttons (it is answered in OpenCode), and a plan with no steps yet", () => {
    const planId = released((host) => {
      const id = host.create({ message: 'greet' }).getSnapshot().context.plan_id;
      host.send(id, { type: 'xstate.done.actor.openPlannerSession', output: { sessionId: 'ses_p' } } as never);
      host.send(id, { type: 'xstate.done.actor.consultPlanner', output: turn({ type: 'question', questions: [{ header: 'Style', question: 'Formal or casual?', options: [{ label: 'Formal' }] }] }) } as never);
      host.flush(id);
      return id;
    });
    const { gates, graph, steps, waiting_for } = view(planId);
    expect(waiting_for).toBe('question');
    expect(gates).toEqual([{ kind: 'question', title: 'The planner asks', detail: ['Formal or casual?', 'Answer in OpenCode: the question dialog, or orca_ask_planner with this plan_id.'], options: [] }]);
    expect([graph, steps]).toEqual([{ width: 0, height: 0, nodes: [], edges: [] }, []]);
  });

  it('should show no usage when the plan file has none, and the plan and step usage when it has', () => {
    const planId = released((h) => failedStepPlan(h, 1));
    // As a file written before usage was recorded.
    patchFile(planId, (raw) => {
      delete raw.usage;
      delete raw.budget;
      for (const step of raw.steps) {
        delete step.usage;
        delete step.usage_by_role;
      }
    });
    const bare = view(planId);
    expect(bare).not.toHaveProperty('usage');
    expect(bare.steps.every((s) => !('usage' in s))).toBe(true);
    expect(planListView(project.dir, [read(planId)]).plans[0]).not.toHaveProperty('usage');

    patchFile(planId, (raw) => {
      raw.usage = { turns: 4, input: 1200, output: 300, reasoning: 50, cache_read: 800, cache_write: 0, cost: 0.0123 };
      raw.steps[0].usage = { turns: 2, input: 600, output: 150, reasoning: 0, cache_read: 400, cache_write: 0, cost: 0.006 };
      delete raw.steps[1].usage; // none recorded: shown as nothing (a malformed one fails the plan file's schema)
    });
    const withUsage = view(planId);
    expect(withUsage.usage).toEqual({ turns: 4, input: 1200, output: 300, reasoning: 50, cache_read: 800, cache_write: 0, cost: 0.0123 });
    expect(withUsage.steps[0]!.usage).toMatchObject({ turns: 2, cost: 0.006 });
    expect(withUsage.steps[1]).not.toHaveProperty('usage');
    expect(withUsage.steps[0]).not.toHaveProperty('usage_by_role');
    expect(planListView(project.dir, [read(planId)]).plans[0]!.usage?.cost).toBe(0.0123);
  });

  it("should show a step's model calls and its usage by whose turns they were, as the plugin records them", () => {
    const planId = released((h) => failedStepPlan(h, 1));
    const { steps } = view(planId);
    // Each fixture turn is one Orca turn of one model call, the specialist's.
    expect(steps[0]!.usage).toMatchObject({ turns: 1, model_calls: 1 });
    expect(steps[0]!.usage_by_role).toEqual({ specialist: expect.objectContaining({ turns: 1, model_calls: 1 }) });
    patchFile(planId, (raw) => {
      raw.steps[0].usage_by_role = { reviewer: { turns: 1, model_calls: 2, input: 1, output: 1, reasoning: 0, cache_read: 0, cache_write: 0, cost: 0 }, specialist: raw.steps[0].usage_by_role.specialist };
    });
    expect(Object.keys(view(planId).steps[0]!.usage_by_role!)).toEqual(['specialist', 'reviewer']);
  });

  it('should lay out the graph of each earlier version the file keeps, newest first', () => {
    const planId = released(approvalPlan);
    expect(view(planId).revisions).toEqual([]);
    const version = (steps: Array<{ id: string; agent: string; description: string; depends_on?: string[] }>) => ({
      goal: 'say hello',
      steps,
      assumptions: [],
      risks: [],
      verification: [],
    });
    patchFile(planId, (raw) => {
      raw.revisions = [
        version([{ id: 'a', agent: 'coder', description: 'first try' }]),
        version([{ id: 'a', agent: 'coder', description: 'first try' }, { id: 'b', agent: 'tester', description: 'test it', depends_on: ['a'] }]),
      ];
    });
    const revisions = view(planId).revisions;
    expect(revisions.map((r) => [r.index, r.label, r.graph.nodes.map((n) => `${n.id}:${n.status}`), r.graph.edges.length])).toEqual([
      [1, 'version 2: say hello', ['a:pending', 'b:pending'], 1],
      [0, 'version 1: say hello', ['a:pending'], 0],
    ]);
  });

  it('should turn the journal into a timeline and pass on the decisions waiting in the inbox', () => {
    const planId = released((h) => failedStepPlan(h, 2));
    const journal = readPlanJournal(project.store.dir, planId);
    const { timeline, decisions, queued } = view(planId, [{ words: 'approval.approve posted 2026-01-01T00:00:00.000Z', event: { type: 'approval.approve' } }]);
    // In words; a usage event and a step chart's end repeat other entries and are left out.
    expect(timeline.total).toBe(journal.filter((e) => !(e.kind === 'event' && /^usage\.recorded$|^xstate\.done\.actor\.step:/.test(e.event.type))).length);
    expect(timeline.items[0]).toEqual({ at: journal[0]!.at, kind: 'event', text: 'plan created from "say hello"' });
    expect(timeline.items).toContainEqual(expect.objectContaining({ kind: 'event', text: 'Retry at the failed step gate (step s2) by slash command: "try fix 1"' }));
    expect(timeline.items).toContainEqual(expect.objectContaining({ kind: 'state', text: 'step s2 → awaiting_decision' }));
    expect(JSON.stringify(timeline)).not.toContain('xstate.');
    expect(decisions.map((d) => d.option)).toEqual(['Approve', 'Retry']);
    expect(queued).toEqual(['approval.approve posted 2026-01-01T00:00:00.000Z']);
  });

  it('should be a pure function of the plan file and journal, and plain JSON', () => {
    const planId = released((h) => failedStepPlan(h, 1));
    const first = view(planId);
    expect(view(planId)).toEqual(first);
    expect(JSON.parse(JSON.stringify(first))).toEqual(first);
  });
});

describe('the plans list data', () => {
  it('should list plans newest first with status, progress and what each waits for, and name files that do not load', async () => {
    const older = released((h) => failedStepPlan(h, 1));
    await new Promise((resolve) => setTimeout(resolve, 5)); // a later ULID
    const newer = released(approvalPlan);
    const list = planListView(project.dir, [read(older), read(newer)], [{ plan_id: 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9', reason: 'not valid JSON' }]);
    expect(list.plans.map((p) => [p.plan_id, p.status, p.waiting_for, `${p.progress.completed}/${p.progress.total}`])).toEqual([
      [newer, 'pending_approval', 'approval', '0/2'],
      [older, 'in_progress', 'deviation', '1/2'],
    ]);
    expect(list.unreadable).toEqual([{ plan_id: 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9', reason: 'not valid JSON' }]);
  });

  it('should say whether a plan with work in flight runs (a process holds it) or is paused', async () => {
    const planId = released(runningPlan);
    const activity = (held: boolean) => planListView(project.dir, [read(planId)], [], () => held).plans[0]!.activity;
    expect([activity(true), activity(false)]).toEqual(['running', 'paused']);
    const { listData } = await import('../../src/ui/api-data.js');
    expect(listData(project.dir, project.store.dir).plans[0]!.activity).toBe('paused'); // its host let go
  });
});
