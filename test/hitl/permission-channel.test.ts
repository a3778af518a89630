import { describe, expect, it } from 'vitest';
import { askPermission } from '../../src/hitl/permission-channel.js';
import type { Gate } from '../../src/machines/gates.js';
import { budgetGate, deviationGate, mergeGate } from './gate-fixtures.js';

const approval: Gate = {
  kind: 'approval',
  planId: 'plan_X',
  proposal: { goal: 'g', steps: [{ id: 's1', agent: 'coder', description: 'd' }], assumptions: [], risks: [], verification: [] },
  changes: null,
  review_agents: ['coder'],
  options: ['Approve', 'Request Changes', 'Reject'],
  autoOptions: ['Approve', 'Request Changes', 'Reject'],
};
const deviation = (options: Array<'Retry' | 'Replan' | 'Stop'>, breaker?: string): Gate => deviationGate({ options, ...(breaker ? { breaker } : {}) });
const budget = (cap: number): Gate => budgetGate({ dispatches: cap, cap, completed: 2, total: 5 });

/** The errors OpenCode 1.18 throws from ctx.ask (names and messages as in the binary). */
const rejected = Object.assign(new Error('The user rejected permission to use this specific tool call.'), { _tag: 'PermissionRejectedError' });
const corrected = (feedback: string) =>
  Object.assign(new Error(`The user rejected permission to use this specific tool call with the following feedback: ${feedback}`), {
    _tag: 'PermissionCorrectedError',
    feedback,
  });

const ctx = (outcome: 'allow' | Error) => {
  const asks: unknown[] = [];
  return {
    asks,
    ask: async (input: unknown) => {
      asks.push(input);
      if (outcome !== 'allow') throw outcome;
    },
  };
};

describe('permission channel', () => {
  it('should map Allow to Approve and ask with a pattern unique to the plan', async () => {
    const c = ctx('allow');
    expect(await askPermission(c, approval)).toEqual({ option: 'Approve' });
    expect(c.asks).toMatchObject([{ permission: 'orca_plan_approval', patterns: ['plan_X'], always: [] }]);
  });

  it('should map Reject to Reject, and Reject with feedback to Request Changes with the text', async () => {
    expect(await askPermission(ctx(rejected), approval)).toEqual({ option: 'Reject' });
    expect(await askPermission(ctx(corrected('smaller steps')), approval)).toEqual({ option: 'Request Changes', text: 'smaller steps' });
  });

  it('should map Allow to Retry while offered, and to Replan once Retry is gone', async () => {
    const c = ctx('allow');
    expect(await askPermission(c, deviation(['Retry', 'Replan', 'Stop']))).toEqual({ option: 'Retry' });
    expect(c.asks).toMatchObject([{ permission: 'orca_step_deviation', patterns: ['plan_X:s1:3'] }]);
    expect(await askPermission(ctx('allow'), deviation(['Replan', 'Stop']))).toEqual({ option: 'Replan' });
  });

  it('should map Reject to Stop and Reject with feedback to Replan with guidance', async () => {
    expect(await askPermission(ctx(rejected), deviation(['Retry', 'Replan', 'Stop']))).toEqual({ option: 'Stop' });
    expect(await askPermission(ctx(corrected('split it')), deviation(['Retry', 'Replan', 'Stop']))).toEqual({ option: 'Replan', text: 'split it' });
  });

  it('should not answer planner questions and should pass other errors through', async () => {
    expect(await askPermission(ctx('allow'), { kind: 'question', planId: 'plan_X', questions: [], options: [], autoOptions: [] })).toBeNull();
    await expect(askPermission(ctx(new Error('socket closed')), approval)).rejects.toThrow('socket closed');
  });

  it("should put the approval forecast in the permission's metadata", async () => {
    const c = ctx('allow');
    const forecast = { dispatches: { steps: 1, reviews: 1, total: 2 }, estimate: null };
    expect(await askPermission(c, approval, { forecast })).toEqual({ option: 'Approve' });
    expect(c.asks).toMatchObject([{ permission: 'orca_plan_approval', metadata: { forecast: expect.stringMatching(/^Forecast: at least 2 dispatches \(1 step \+ 1 reviewer round\); tokens and cost: no history yet/) } }]);
  });

  it('should map Allow to Continue at the dispatch cap, with a pattern unique to each pause', async () => {
    const c = ctx('allow');
    expect(await askPermission(c, budget(100))).toEqual({ option: 'Continue' });
    expect(await askPermission(c, budget(200))).toEqual({ option: 'Continue' });
    expect(c.asks).toMatchObject([
      {
        permission: 'orca_dispatch_budget',
        patterns: ['plan_X:budget:100:-:-'],
        always: [],
        metadata: { reached: ['dispatches'], dispatches: 100, cap: 100, continue_allows: 100, spent: '42,000 tokens, $0.42', steps_completed: '2 of 5' },
      },
      { permission: 'orca_dispatch_budget', patterns: ['plan_X:budget:200:-:-'] },
    ]);
  });

  it('should map Reject to Stop at the dispatch cap, keeping a message as the note', async () => {
    expect(await askPermission(ctx(rejected), budget(100))).toEqual({ option: 'Stop' });
    expect(await askPermission(ctx(corrected('enough for today')), budget(100))).toEqual({ option: 'Stop', text: 'enough for today' });
  });

  it('should offer Retry at an open breaker (a human answers the prompt) and show the breaker', async () => {
    const c = ctx('allow');
    expect(await askPermission(c, deviation(['Retry', 'Replan', 'Stop'], 'circuit breaker: same error'))).toEqual({ option: 'Retry' });
    expect(c.asks).toMatchObject([{ permission: 'orca_step_deviation', metadata: { breaker: 'circuit breaker: same error' } }]);
  });

  it('should map Allow to Run again on top at the merge gate, Reject to Stop, Reject with a message to Resolved by hand with it as a note', async () => {
    const c = ctx('allow');
    expect(await askPermission(c, mergeGate({ attempt: 2 }))).toEqual({ option: 'Run again on top' });
    expect(c.asks).toMatchObject([
      {
        permission: 'orca_step_merge',
        patterns: ['plan_X:merge:s1:2'],
        metadata: {
          step_id: 's1',
          conflicts: ['src/hello.ts'],
          changed: '2 files +15 −4, 1 not declared',
          patch: '/p/.opencode/plans/plan_X.s1.patch',
          worktree: '/tmp/orca-wt/plan_X-s1',
          options: ['Run again on top', 'Resolved by hand', 'Stop'],
        },
      },
    ]);
    expect(await askPermission(ctx(rejected), mergeGate())).toEqual({ option: 'Stop' });
    expect(await askPermission(ctx(corrected('merged it myself')), mergeGate())).toEqual({ option: 'Resolved by hand', text: 'merged it myself' });
  });
});
