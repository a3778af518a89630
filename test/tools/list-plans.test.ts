import { describe, expect, it } from 'vitest';
import type { Orca } from '../../src/composition-root.js';
import { newPlanId } from '../../src/persistence/plan-id.js';
import { createPlanIndex, type PlanSummary } from '../../src/persistence/plan-index.js';
import { listPlansTool } from '../../src/tools/list-plans.js';

/** The tool over an index of `count` plans; plan i was created at second i (ids sort by time). */
function toolWith(count: number) {
  const index = createPlanIndex();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const summary: PlanSummary = {
      plan_id: newPlanId(1_700_000_000_000 + i * 1000),
      goal: `goal ${i}`,
      status: 'completed',
      state: 'completed',
      step_progress: { completed: 2, total: 2 },
      waiting_for: null,
      busy: false,
      caller_session_id: null,
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    ids.push(summary.plan_id);
    index.trigger.upsert({ summary });
  }
  const tool = listPlansTool({ host: { index, isHeld: () => false } } as unknown as Orca);
  const list = async (args: Record<string, unknown>) => JSON.parse((await tool.execute(args as never, {} as never)) as string);
  return { list, newestFirst: ids.reverse() };
}

describe('orca_list_plans', () => {
  it('should return the newest 50 by default, with the total and the offset of the next page', async () => {
    const { list, newestFirst } = toolWith(120);
    const page = await list({});
    expect(page.total).toBe(120);
    expect(page.showing).toBe('1-50 of 120, newest first');
    expect(page.plans.map((p: { plan_id: string }) => p.plan_id)).toEqual(newestFirst.slice(0, 50));
    expect(page.plans[0]).toEqual({ plan_id: newestFirst[0], goal: 'goal 119', status: 'completed', activity: 'idle', step_progress: '2/2', updated_at: '2026-01-01T00:00:00.000Z' });
    expect(page.more).toBe('70 older plan(s): call orca_list_plans with offset 50 to see them.');
  });

  it('should page with offset and limit until there is no more', async () => {
    const { list, newestFirst } = toolWith(120);
    const second = await list({ offset: 50, limit: 60 });
    expect(second.plans.map((p: { plan_id: string }) => p.plan_id)).toEqual(newestFirst.slice(50, 110));
    expect(second.more).toBe('10 older plan(s): call orca_list_plans with offset 110 to see them.');
    const last = await list({ offset: 110, limit: 60 });
    expect(last.showing).toBe('111-120 of 120, newest first');
    expect(last.plans).toHaveLength(10);
    expect(last).not.toHaveProperty('more');
  });

  it('should say so when the offset is past the oldest plan, and when there are none', async () => {
    const past = await toolWith(3).list({ offset: 3 });
    expect(past).toMatchObject({ total: 3, showing: 'none of 3', plans: [], note: 'offset 3 is past the oldest plan: use an offset below 3.' });
    expect(await toolWith(0).list({})).toEqual({ total: 0, showing: 'none of 0', plans: [] });
  });

  it('should name what each plan is doing: waiting, running (a process holds it), paused (nobody does) or idle', async () => {
    const index = createPlanIndex();
    const plan = (i: number, over: Partial<PlanSummary>): PlanSummary => ({
      plan_id: newPlanId(1_700_000_000_000 + i * 1000),
      goal: `goal ${i}`,
      status: 'in_progress',
      state: 'in_progress.running',
      step_progress: { completed: 0, total: 2 },
      waiting_for: null,
      busy: true,
      caller_session_id: null,
      updated_at: '2026-01-01T00:00:00.000Z',
      ...over,
    });
    const [paused, running, waiting, idle] = [plan(4, {}), plan(3, {}), plan(2, { status: 'pending_approval', busy: false, waiting_for: 'approval' }), plan(1, { status: 'completed', busy: false })];
    for (const summary of [paused, running, waiting, idle]) index.trigger.upsert({ summary });
    const tool = listPlansTool({ host: { index, isHeld: (id: string) => id === running.plan_id } } as unknown as Orca);
    const { plans } = JSON.parse((await tool.execute({} as never, {} as never)) as string);
    expect(plans.map((p: { activity: string }) => p.activity)).toEqual(['paused', 'running', 'waiting', 'idle']);
    expect(plans[0].resume).toBe(`Paused: nothing runs it until it is resumed. Call orca_ask_planner with plan_id ${paused.plan_id} to resume it from its saved state.`);
    expect(plans[1]).not.toHaveProperty('resume');
    expect(plans[2]).toMatchObject({ activity: 'waiting', waiting_for: 'approval' });
  });

  it.each([
    [{ limit: 0 }, '`limit` must be an integer from 1 to 200, got 0'],
    [{ limit: 201 }, '`limit` must be an integer from 1 to 200, got 201'],
    [{ limit: 2.5 }, '`limit` must be an integer from 1 to 200, got 2.5'],
    [{ limit: 'ten' }, '`limit` must be an integer from 1 to 200, got "ten"'],
    [{ offset: -1 }, '`offset` must be an integer of 0 or more, got -1'],
    [{ offset: -1, limit: 0 }, '`limit` must be an integer from 1 to 200, got 0; `offset` must be an integer of 0 or more, got -1'],
    [{ page: 2 }, 'unexpected argument `page`: orca_list_plans takes `limit` (optional), `offset` (optional)'],
  ])('should reject %j saying what was expected', async (args, problems) => {
    const reply = await toolWith(3).list(args);
    expect(reply).toEqual({
      status: 'failure',
      error: `orca_list_plans was called with invalid arguments: ${problems}. Nothing was done: call it again with valid arguments.`,
      error_type: 'InvalidToolArgumentsError',
      expected: { limit: 'an integer from 1 to 200 (optional)', offset: 'an integer of 0 or more (optional)' },
    });
  });
});
