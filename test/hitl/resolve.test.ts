import { describe, expect, it } from 'vitest';
import type { AutoPolicy } from '../../src/config/options.js';
import type { Gate } from '../../src/machines/gates.js';
import type { AskInput, AskOutcome } from '../../src/hitl/native-question/asker.js';
import { resolveGate, type GateResolverDeps } from '../../src/hitl/resolve.js';
import { budgetGate, deviationGate, mergeGate } from './gate-fixtures.js';
import type { AgentTurns } from '../../src/usage/history.js';

const breaker = 'circuit breaker: the same error 3 times in a row on step s1; automatic retrying stopped, a human decides';
const deviation: Gate = deviationGate({ breaker });
const budget: Gate = budgetGate({ dispatches: 5, cap: 5, increment: 5, completed: 1, total: 2 });

/** An Orca whose dialog answers from a script, and whose permission prompt is never reached unless the dialog is unavailable. */
function fakeOrca(auto: AutoPolicy | undefined, replies: AskOutcome[], history: Record<string, AgentTurns> = {}) {
  const logs: string[] = [];
  const asked: AskInput[] = [];
  const orca = {
    options: auto ? { hitl: { auto } } : {},
    history: { stats: (agent: string) => history[agent] ?? null, record: () => {} },
    log: (level: string, message: string) => void logs.push(`${level}: ${message}`),
    asker: {
      ask: async (input: AskInput) => {
        asked.push(input);
        // A page of a long text before the decision: the reader goes on (scripts answer decisions only).
        if (input.questions[0]!.header.startsWith('Page ')) return { kind: 'answered', answers: [[input.questions[0]!.options[0]!.label]], sessionId: 'ses_q' };
        return replies.shift() ?? { kind: 'dismissed', sessionId: 'ses_q' };
      },
    },
  } as unknown as GateResolverDeps;
  return { orca, logs, asked };
}
const ctx = { sessionID: 'ses_root', ask: async () => {} };
const signal = new AbortController().signal;

describe('resolveGate', () => {
  it('should not let hitl.auto.deviation answer at an open breaker: it logs the pause and asks a human', async () => {
    const { orca, logs, asked } = fakeOrca({ deviation: 'retry' }, [{ kind: 'answered', answers: [['Retry'], ['use fake timers']], sessionId: 'ses_q' }]);
    const answer = await resolveGate(orca, deviation, ctx, signal);
    expect(logs[0]).toBe(`warn: plan plan_X: auto policy paused by the circuit breaker: hitl.auto.deviation=retry not applied to step s1 (${breaker}); asking a human`);
    expect(asked[0]!.title).toBe('Orca: step s1 failed (circuit breaker)');
    expect(asked[0]!.questions[0]!.question).toContain('automatic retrying stopped');
    expect(answer).toMatchObject({ event: { type: 'deviation.retry', stepId: 's1', text: 'use fake timers', channel: 'question' } });
  });

  it("should show a step's conflicts on pages, then ask; the auto policy never answers Resolved by hand", async () => {
    const { orca, asked } = fakeOrca(undefined, [{ kind: 'answered', answers: [['Resolved by hand'], ['took both']], sessionId: 'ses_q' }]);
    const answer = await resolveGate(orca, mergeGate(), ctx, signal);
    expect(new Set(asked.map((a) => a.title))).toEqual(new Set(["Orca: step s1's changes did not apply"]));
    const pages = asked.slice(0, -1).map((a) => a.questions[0]!.question);
    expect(pages.length).toBeGreaterThan(0);
    expect(pages[0]).toMatch(/^Page 1 of \d · Plan plan_X: step s1 did not apply\n/);
    expect(pages.join('\n')).toContain('Conflict in src/hello.ts:');
    expect(asked.at(-1)!.questions[0]!.header).toBe('Not applied: s1');
    expect(answer).toMatchObject({ event: { type: 'merge.resolved', stepId: 's1', text: 'took both', channel: 'question' } });

    const auto = fakeOrca({ merge: 'rerun' }, []);
    expect(await resolveGate(auto.orca, mergeGate(), ctx, signal)).toMatchObject({
      event: { type: 'merge.rerun', stepId: 's1', text: 'auto policy hitl.auto.merge=rerun', channel: 'auto' },
    });
    expect(auto.asked).toEqual([]);
  });

  it('should answer the dispatch cap by hitl.auto.budget, logged, without asking', async () => {
    const { orca, logs, asked } = fakeOrca({ budget: 'continue' }, []);
    expect(await resolveGate(orca, budget, ctx, signal)).toMatchObject({
      event: { type: 'budget.continue', text: 'auto policy hitl.auto.budget=continue', channel: 'auto' },
    });
    expect(logs).toEqual(['info: plan plan_X: budget gate answered "Continue" by auto policy hitl.auto.budget=continue']);
    expect(asked).toEqual([]);
  });

  it('should ask a human at the dispatch cap, asking again when the answer is no option', async () => {
    const { orca, asked } = fakeOrca(undefined, [
      { kind: 'answered', answers: [['keep going'], ['No guidance']], sessionId: 'ses_q' },
      { kind: 'answered', answers: [['Stop'], ['No guidance']], sessionId: 'ses_q' },
    ]);
    expect(await resolveGate(orca, budget, ctx, signal)).toMatchObject({ event: { type: 'budget.stop', channel: 'question' } });
    expect(asked.map((a) => a.title)).toEqual(['Orca: plan plan_X reached its budget', 'Orca: plan plan_X reached its budget']);
    expect(asked[1]!.questions[0]!.question).toMatch(/^Note: "keep going" is not offered at the budget gate of plan plan_X \(offered: Continue, Stop\)\.\n\nPlan plan_X has reached its budget/);
  });

  it('should forecast the plan in the approval question: no history yet, then from the medians per agent', async () => {
    const approval: Gate = {
      kind: 'approval',
      planId: 'plan_X',
      proposal: {
        goal: 'g',
        steps: [
          { id: 'impl', agent: 'coder', description: 'd' },
          { id: 'docs', agent: 'document-writer', description: 'd' },
        ],
        assumptions: [],
        risks: [],
        verification: [],
      },
      changes: null,
      review_agents: ['coder'],
      options: ['Approve', 'Request Changes', 'Reject'],
      autoOptions: ['Approve', 'Request Changes', 'Reject'],
    };
    const first = fakeOrca(undefined, []);
    await resolveGate(first.orca, approval, ctx, signal);
    expect(first.asked.find((a) => a.questions[0]!.header === 'Plan approval')!.questions[0]!.question).toContain(
      'Forecast: at least 3 dispatches (2 steps + 1 reviewer round); tokens and cost: no history yet',
    );
    const later = fakeOrca({ approval: 'approve' }, [], {
      coder: { turns: 5, median_tokens: 10_000, median_cost: 0.03 },
      reviewer: { turns: 2, median_tokens: 4_000, median_cost: 0.01 },
    });
    await resolveGate(later.orca, approval, ctx, signal);
    expect(later.logs[0]).toContain(
      'Forecast: at least 3 dispatches (2 steps + 1 reviewer round); about 14,000 tokens and $0.04, from the medians of 7 recorded turns (coder 5, reviewer 2); no history yet for document-writer, not counted.',
    );
  });

  it('should fall back to the permission prompt at the dispatch cap: Allow once is Continue', async () => {
    const { orca } = fakeOrca(undefined, [{ kind: 'unavailable', reason: 'no model configured' }]);
    const asks: unknown[] = [];
    const answer = await resolveGate(orca, budget, { sessionID: 'ses_root', ask: async (input: unknown) => void asks.push(input) } as never, signal);
    expect(answer).toMatchObject({ event: { type: 'budget.continue', channel: 'permission' } });
    expect(asks).toMatchObject([{ permission: 'orca_dispatch_budget', patterns: ['plan_X:budget:5:-:-'] }]);
  });
});
