import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getShortestPaths } from 'xstate/graph';
import { PlanHost } from '../../src/host/plan-host.js';
import { idlePorts } from '../support/idle-ports.js';
import { PlanStore } from '../../src/persistence/plan-store.js';
import { statePath } from '../../src/persistence/plan-envelope.js';
import { by, done, idlePlanMachine } from '../machines/fixtures.js';
import { planEvents, serializePlan } from '../machines/plan-events.js';
import { twoStepPlan } from '../machines/fixtures.js';

const output = { summary: 'done', artifacts: ['hello.ts'], key_findings: [] };

/** A deterministic way to the end from any state, using only plan-level events. */
function nextEvent(s: any): any | undefined {
  const path = statePath(s.value);
  if (s.status !== 'active') return undefined;
  if (path === 'drafting.opening_session') return done('openPlannerSession', { sessionId: 'ses_planner' });
  if (path === 'drafting.consulting') return done('consultPlanner', twoStepPlan);
  if (path === 'changes_requested') return done('revisePlan', twoStepPlan);
  if (path === 'drafting.answered' || path === 'drafting.planner_failed') return { type: 'plan.message', message: 'go' };
  if (path === 'drafting.awaiting_answers') return { type: 'question.answer', answers: [['Formal']], ...by };
  if (path === 'pending_approval') return { type: 'approval.approve', ...by };
  const running = s.context.steps.find((st: any) => st.status === 'running');
  if (running) return { type: 'step.completed', stepId: running.id, output };
  const waiting = s.context.steps.find((st: any) => st.status === 'awaiting_decision');
  if (waiting) return { type: 'step.replan_chosen', stepId: waiting.id };
  return undefined;
}

const dirs: string[] = [];
const newStore = () => {
  const dir = mkdtempSync(join(tmpdir(), 'orca-rt-'));
  dirs.push(dir);
  return new PlanStore(join(dir, '.opencode', 'plans'));
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function runToEnd(host: PlanHost, planId: string) {
  for (let i = 0; i < 50; i++) {
    const event = nextEvent(host.open(planId).getSnapshot());
    if (!event) break;
    host.send(planId, event);
  }
  const s = host.open(planId).getSnapshot();
  return JSON.parse(JSON.stringify({ value: s.value, status: s.status, context: s.context }).replaceAll(planId, 'PLAN'));
}

const paths = getShortestPaths(idlePlanMachine, {
  input: { planId: 'plan_X', message: 'Add a greeting', callerSessionId: 'root', maxAttempts: 2 },
  events: planEvents,
  serializeState: serializePlan,
});

describe('persistence round trip', () => {
  it('should explore a non-trivial number of states', () => {
    expect(paths.length).toBeGreaterThan(20);
  });

  it.each(paths.map((p) => [serializePlan(p.state), p] as const))(
    'should continue from %s after persist and restore exactly as without',
    async (_key, path) => {
      const prefix = path.steps.map((s) => s.event as { type: string }).filter((e) => e.type !== 'xstate.init');
      const store = newStore();
      const options = { store, ports: idlePorts, maxAttempts: 2, now: () => new Date('2026-01-01T00:00:00Z') };

      const straight = new PlanHost(options);
      const a = straight.create({ message: 'Add a greeting', callerSessionId: 'root' });
      const aId = a.getSnapshot().context.plan_id;
      for (const e of prefix) straight.send(aId, e as never);
      const uninterrupted = runToEnd(straight, aId);
      await straight.dispose();

      const first = new PlanHost(options);
      const b = first.create({ message: 'Add a greeting', callerSessionId: 'root' });
      const bId = b.getSnapshot().context.plan_id;
      for (const e of prefix) first.send(bId, e as never);
      await Promise.resolve(); // the save runs in a microtask after the macrostep
      const childrenBefore = Object.keys(b.getSnapshot().children).sort();
      await first.dispose();

      const second = new PlanHost(options);
      const restored = second.open(bId);
      expect(serializePlan(restored.getSnapshot())).toBe(serializePlan(path.state));
      expect(Object.keys(restored.getSnapshot().children).sort()).toEqual(childrenBefore);
      expect(runToEnd(second, bId)).toEqual(uninterrupted);
      await second.dispose();
    },
  );
});
