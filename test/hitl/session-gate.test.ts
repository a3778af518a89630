import { describe, expect, it } from 'vitest';
import type { AutoPolicy } from '../../src/config/options.js';
import { askDecision, choiceOf, decisionQuestions, textQuestion } from '../../src/hitl/decision-dialog.js';
import { dialogRows } from '../../src/hitl/dialog-rows.js';
import { PAGE_ROWS } from '../../src/hitl/dialog-pages.js';
import type { AskInput, AskOutcome } from '../../src/hitl/native-question/asker.js';
import { sessionGateResolver, type SessionGateDeps } from '../../src/hitl/session-gate.js';
import type { Gate } from '../../src/machines/gates.js';
import type { PlanProposal } from '../../src/machines/types.js';
import { longPlanProposal } from '../support/long-plan.js';
import { approvalGate, budgetGate, deviationGate, mergeGate } from './gate-fixtures.js';

const approval = approvalGate(longPlanProposal(10) as PlanProposal);
const resume: Gate = {
  kind: 'resume',
  planId: 'plan_X',
  stepId: 's1',
  agent: 'coder',
  attempt: 1,
  turn: 'specialist',
  sessionId: 'ses_s1',
  detail: 'its turn was in flight when the server stopped',
  files: ['src/a.ts'],
  options: ['Re-run', 'Mark done', 'Stop'],
  autoOptions: ['Re-run', 'Stop'],
};
const ALL: Gate[] = [approval, deviationGate({ error: 'x'.repeat(3000) }), mergeGate(), budgetGate(), resume];

/** An asker that answers from a script, recording each dialog (and, with `order`, that it was asked). */
function scriptedAsker(replies: AskOutcome[], order: string[] = []) {
  const asked: AskInput[] = [];
  return {
    asked,
    asker: {
      ask: async (input: AskInput): Promise<AskOutcome> => {
        asked.push(input);
        order.push(`ask ${input.questions[0]!.header}`);
        return replies.shift() ?? { kind: 'dismissed', sessionId: 'ses_q' };
      },
    },
  };
}
const answered = (...answers: string[][]): AskOutcome => ({ kind: 'answered', answers, sessionId: 'ses_q' });
const dialog = { callerSessionId: 'ses_root', title: 'Orca: approve plan plan_X?', signal: new AbortController().signal };

describe('the dialog under the note: the decision only', () => {
  it.each(ALL.map((g) => [g.kind, g] as const))('%s: one question of the options the machine offers, a few rows, whatever the document', (_kind, gate) => {
    const [question, ...more] = decisionQuestions(gate);
    expect(more).toEqual([]);
    expect(question!.options.map((o) => o.label)).toEqual(gate.options);
    expect(dialogRows(question!.question)).toBeLessThanOrEqual(3);
    expect(dialogRows(decisionQuestions(gate, 'Retry is not offered: use Replan or Stop.')[0]!.question)).toBeLessThanOrEqual(PAGE_ROWS);
  });

  it("should cut a planner's question too long for the screen, its whole text being in the note", () => {
    const gate: Gate = { kind: 'question', planId: 'plan_X', questions: [{ header: 'Scope', question: 'word '.repeat(300), options: [{ label: 'a' }, { label: 'b' }] }], options: [], autoOptions: [] };
    const [question] = decisionQuestions(gate);
    expect(dialogRows(question!.question)).toBeLessThanOrEqual(PAGE_ROWS + 2);
    expect(question!.question).toMatch(/…\n\(In full in the note above\.\)$/);
  });

  it('should take an option by its label in any case, and at approval what is typed as the changes asked for', () => {
    expect(choiceOf(approval, [['Approve']])).toEqual({ option: 'Approve' });
    expect(choiceOf(approval, [[' reject ']])).toEqual({ option: 'Reject' });
    expect(choiceOf(approval, [['split step 3 in two']])).toEqual({ option: 'Request Changes', text: 'split step 3 in two' });
    expect(choiceOf(deviationGate(), [['try harder']])).toEqual({ option: 'try harder' });
  });
});

describe('the keys that open a text field (issue 49, item 6)', () => {
  // OpenCode 1.18.33 draws typing as one more numbered option, "Type your own answer", whose field opens
  // only at its digit or Enter on it: what is typed before is lost (seen in tmux at 80x24).
  it('should tell the text field of Request Changes and Mark done to press Enter (or 1) before typing, never "Type it, then Enter"', () => {
    for (const [gate, option] of [[approval, 'Request Changes'], [resume, 'Mark done']] as const) {
      const question = textQuestion(gate, option);
      expect(question.options).toEqual([]);
      expect(question.question).toContain('\nPress Enter (or 1), type your answer, then Enter.');
      expect(question.question).not.toContain('Type it, then Enter');
    }
  });

  it("should say Request Changes' other way in by the digit of \"Type your own answer\": one after the gate's options", () => {
    const [question] = decisionQuestions(approval);
    expect(question!.options.find((o) => o.label === 'Request Changes')!.description).toBe(`Then type what to change (or press ${approval.options.length + 1} and type it here)`);
  });

  it("should add the keys to a planner's question that only takes typed words, and to no other", () => {
    const gate: Gate = {
      kind: 'question',
      planId: 'plan_X',
      questions: [
        { header: 'Name', question: 'What should the new command be called?', options: [], custom: true },
        { header: 'Scope', question: 'Which part?', options: [{ label: 'all' }, { label: 'cli' }] },
      ],
      options: [],
      autoOptions: [],
    };
    const [name, scope] = decisionQuestions(gate);
    expect(name!.question).toBe('What should the new command be called?\nPress Enter (or 1), type your answer, then Enter.');
    expect(scope!.question).toBe('Which part?');
  });
});

describe('asking the decision', () => {
  it('should take Approve with the one dialog', async () => {
    const { asker, asked } = scriptedAsker([answered(['Approve'])]);
    expect(await askDecision(asker, approval, dialog)).toEqual({ kind: 'chosen', choice: { option: 'Approve' } });
    expect(asked).toHaveLength(1);
  });

  it('should ask for the words Request Changes and Mark done need, in a text field of their own; Esc there leaves the gate open', async () => {
    const changes = scriptedAsker([answered(['Request Changes']), answered(['  merge steps 4 and 5 '])]);
    expect(await askDecision(changes.asker, approval, dialog)).toEqual({ kind: 'chosen', choice: { option: 'Request Changes', text: 'merge steps 4 and 5' } });
    expect(changes.asked[1]!.questions).toEqual([expect.objectContaining({ header: 'Request Changes', options: [], custom: true })]);
    const done = scriptedAsker([answered(['Mark done']), { kind: 'dismissed', sessionId: 'ses_q' }]);
    expect(await askDecision(done.asker, resume, dialog)).toEqual({ kind: 'dismissed', sessionId: 'ses_q' });
    expect(done.asked[1]!.questions[0]!.question).toMatch(/^What did step s1 do\? Your words become its summary\./);
  });

  it('should ask again, with a note, what the gate does not take, and give up after two more tries', async () => {
    const { asker, asked } = scriptedAsker([answered(['again please']), answered(['Retry']), answered(['Stop'])]);
    expect(await askDecision(asker, deviationGate({ options: ['Replan', 'Stop'] }), dialog)).toEqual({ kind: 'chosen', choice: { option: 'Stop' } });
    expect(asked[1]!.questions[0]!.question).toMatch(/^Note: "again please" is not offered/);
    const refused = scriptedAsker([answered(['x']), answered(['y']), answered(['z'])]);
    expect(await askDecision(refused.asker, deviationGate(), dialog)).toEqual({ kind: 'refused', message: expect.stringContaining('"z" is not offered') });
    expect(refused.asked.map((a) => a.questions[0]!.question.split('\n')[0])).toEqual([
      expect.stringMatching(/^Step s1 \(coder\) failed/),
      expect.stringMatching(/^Note: "x" is not offered at step s1 of plan plan_X/),
      expect.stringMatching(/^Note: "y" is not offered/),
    ]);
    expect(asked[2]!.questions[0]!.question).toMatch(/^Note: Retry is no longer offered/);
  });
});

/** An Orca whose notes and dialog are scripted, keeping the order in which things happen. */
function sessionOrca(replies: AskOutcome[], { auto, posted = true }: { auto?: AutoPolicy; posted?: boolean } = {}) {
  const order: string[] = [];
  const logs: string[] = [];
  const { asker, asked } = scriptedAsker(replies, order);
  const deps: SessionGateDeps = {
    options: auto ? { hitl: { auto } } : {},
    history: { stats: () => null },
    log: (level, message) => void logs.push(`${level}: ${message}`),
    asker,
    notes: {
      say: async (sessionId, text) => (order.push(`say ${sessionId}: ${text.split('\n')[0]}`), posted),
      post: (sessionId, text) => void order.push(`post ${sessionId}: ${text}`),
    },
  };
  return { deps, order, asked, logs };
}

describe('a gate asked in the session that started the plan', () => {
  it('should post the whole document first, then ask the decision under it, and send its event', async () => {
    const { deps, order, asked } = sessionOrca([answered(['Approve'])]);
    const answer = await sessionGateResolver(deps, 'ses_owner')(approval, new AbortController().signal);
    expect(order).toEqual(['say ses_owner: Orca: plan plan_X waits for your approval: 10 steps.', 'ask Plan approval']);
    expect(asked[0]!.callerSessionId).toBe('ses_owner');
    expect(answer).toMatchObject({ event: { type: 'approval.approve', channel: 'question' } });
  });

  it('should let the configured auto policy answer with no note and no dialog', async () => {
    const { deps, order } = sessionOrca([], { auto: { approval: 'approve' } });
    expect(await sessionGateResolver(deps, 'ses_owner')(approval, new AbortController().signal)).toMatchObject({ event: { type: 'approval.approve', channel: 'auto' } });
    expect(order).toEqual([]);
  });

  it('should leave the plan at its gate after Esc, say how to answer, and wait until the gate is answered elsewhere', async () => {
    const { deps, order } = sessionOrca([{ kind: 'dismissed', sessionId: 'ses_q' }]);
    const closed = new AbortController();
    const waiting = sessionGateResolver(deps, 'ses_owner')(deviationGate(), closed.signal);
    let settled = false;
    void waiting.catch(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false); // silence never answers
    expect(order.at(-1)).toBe(
      'post ses_owner: Orca: The dialog was closed: plan plan_X still waits for a decision on a failed step. To go on, answer with /orca-retry, /orca-replan, /orca-stop, or type /orca-resume to be asked again.',
    );
    closed.abort(new Error('answered by /orca-retry'));
    await expect(waiting).rejects.toThrow('answered by /orca-retry');
  });

  it('should ask nothing when the document could not be posted: no decision without it', async () => {
    const { deps, order, logs } = sessionOrca([answered(['Approve'])], { posted: false });
    const closed = new AbortController();
    const waiting = sessionGateResolver(deps, 'ses_owner')(approval, closed.signal);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual(['say ses_owner: Orca: plan plan_X waits for your approval: 10 steps.']);
    expect(logs).toEqual(['warn: plan plan_X: its approval document could not be posted in session ses_owner; no dialog without it']);
    closed.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
  });
});
