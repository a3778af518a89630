import { describe, expect, it } from 'vitest';
import { PAGE_OPTIONS, PAGE_ROWS, paginate, pageQuestion } from '../../src/hitl/dialog-pages.js';
import { APPROVAL_QUESTION_LINES, dialogRows } from '../../src/hitl/dialog-rows.js';
import { gatePages, gateQuestions } from '../../src/hitl/gate-questions.js';
import type { AskInput, AskOutcome } from '../../src/hitl/native-question/asker.js';
import { resolveGate, type GateResolverDeps } from '../../src/hitl/resolve.js';
import type { Gate } from '../../src/machines/gates.js';
import { diffProposals } from '../../src/machines/plan-diff.js';
import { longPlanProposal } from '../support/long-plan.js';
import { deviationGate } from './gate-fixtures.js';

type ApprovalGate = Extract<Gate, { kind: 'approval' }>;
const planId = 'plan_01M85HFE778WMX3GEX088XC0GP';
const approval = (proposal = longPlanProposal(), changes: ApprovalGate['changes'] = null): ApprovalGate => ({
  kind: 'approval',
  planId,
  proposal,
  changes,
  review_agents: ['coder'],
  options: ['Approve', 'Request Changes', 'Reject'],
  autoOptions: ['Approve', 'Request Changes', 'Reject'],
});
const flat = (text: string) => text.replace(/\s+/g, ' ').trim();
/** What the human reads, page after page, as one text with the page headings removed. */
const readAll = (pages: string[]) => flat(pages.join(' '));

describe('the whole plan, page by page, before the approval question', () => {
  const gate = approval();
  const pages = gatePages(gate);

  it('should hold every step in full: agent, dependencies, description, files, success criterion', () => {
    expect(pages.length).toBeGreaterThan(3);
    const read = readAll(pages);
    for (const [i, step] of gate.proposal.steps.entries()) {
      expect(read).toContain(flat(`Step ${i + 1} of 10: ${step.id} (${step.agent})${step.depends_on ? `, after ${step.depends_on.join(', ')}` : ''}`));
      expect(read).toContain(flat(step.description));
      expect(read).toContain(`Files: ${step.files!.join(', ')}`);
      expect(read).toContain(flat(`Done when: ${step.success}`));
    }
    expect(read).toContain(flat(`Goal: ${gate.proposal.goal}`));
    for (const item of [...gate.proposal.assumptions, ...gate.proposal.risks, ...gate.proposal.verification]) expect(read).toContain(flat(item));
  });

  it('should fit each page, with its heading row, in the rows a page has at 80x24, and never part a heading from its list', () => {
    for (const [i] of pages.entries()) {
      const question = pageQuestion(`Plan ${planId} for approval`, pages, i).question;
      expect(dialogRows(question)).toBeLessThanOrEqual(PAGE_ROWS);
      expect(question).not.toMatch(/(Assumptions|Risks|Verification):$/);
    }
    const long = pageQuestion('x'.repeat(200), pages, 0).question.split('\n')[0]!;
    expect(dialogRows(long)).toBe(1);
  });

  it('should carry the forecast on the pages when there is one', () => {
    const forecast = { dispatches: { steps: 10, reviews: 7, total: 17 }, estimate: null };
    expect(readAll(gatePages(gate, { forecast }))).toContain('Forecast: at least 17 dispatches (10 steps + 7 reviewer rounds)');
  });

  it('should keep the approval question itself within its rows, pointing back to the pages', () => {
    const [action] = gateQuestions(gate);
    expect(dialogRows(action!.question)).toBeLessThanOrEqual(APPROVAL_QUESTION_LINES);
    expect(action!.question).toContain('shown in full before this question');
  });

  it('should ask no pages for a plan that fits in the question, and then put the whole plan in it', () => {
    const small = approval({ goal: 'Fix mean()', steps: [{ id: 'fix', agent: 'coder', description: 'Divide by length' }], assumptions: [], risks: [], verification: [] } as never);
    expect(gatePages(small)).toEqual([]);
    expect(gateQuestions(small)[0]!.question).toBe(
      `Plan ${planId}: 1 step\nGoal: Fix mean()\nStep 1 of 1: fix (coder): Divide by length\nNo assumptions, risks or verification given.\nApprove plan ${planId}?`,
    );
  });

  it('should word the summary of a question asked again (a note above it) as true whether or not pages came first', () => {
    const steps = Array.from({ length: 5 }, (_, i) => ({ id: `s${i}`, agent: 'coder' as const, description: `step ${i}` }));
    const fits = approval({ goal: 'g', steps, assumptions: [], risks: [], verification: [] } as never);
    expect(gatePages(fits)).toEqual([]); // the whole plan was in the first question
    const again = gateQuestions(fits, { reserve: 4 })[0]!.question;
    expect(dialogRows(again)).toBeLessThanOrEqual(APPROVAL_QUESTION_LINES - 4);
    expect(again).toMatch(/more step\(s\), shown in full before this question/);
    expect(again).not.toMatch(/page/i);
  });

  it('should show a revision with every change in full', () => {
    const before = longPlanProposal(9);
    const after = longPlanProposal(10);
    after.steps[2] = { ...after.steps[2]!, description: `${after.steps[2]!.description} Also keep the old message as a hint.` };
    const read = readAll(gatePages(approval(after, diffProposals(before, after, new Set(['parser-1'])))));
    expect(read).toContain('What changed since the version you saw:');
    expect(read).toContain(flat(`+ ${after.steps[9]!.id} (${after.steps[9]!.agent}): ${after.steps[9]!.description}`));
    expect(read).toContain(flat(`~ cli-3 description: ${before.steps[2]!.description} → ${after.steps[2]!.description}`));
    expect(read).toContain('kept (completed, not run again): parser-1');
  });
});

describe('a failed step with a long error', () => {
  const error = `REVIEW FAILED in round 2 of 2: 1 error\n[ERROR-001] Logic\n├── File: src/stats.js\n├── Issue: ${'mean() still divides by zero for an empty list, '.repeat(60)}end-of-error`;
  const gate = deviationGate({ error, failures: 1 });

  it('should show the whole error on pages and keep Retry / Replan / Stop on screen', () => {
    const pages = gatePages(gate);
    expect(pages.length).toBeGreaterThan(1);
    expect(readAll(pages)).toContain(flat(error));
    const [action] = gateQuestions(gate);
    expect(dialogRows(action!.question)).toBeLessThanOrEqual(APPROVAL_QUESTION_LINES);
    expect(action!.question).toMatch(/^Step s1 \(coder\) failed \(1 failed attempt\): REVIEW FAILED/);
    expect(action!.question).toContain('(The whole error was shown before this question.)');
    expect(action!.question.endsWith('What now?')).toBe(true);
  });

  it('should ask no pages when the error fits in the question', () => {
    expect(gatePages(deviationGate({ error: 'test 3 is red' }))).toEqual([]);
  });
});

describe('paginate', () => {
  it('should never start a page with a blank line, never exceed its rows, and keep every word in order', () => {
    const text = ['a '.repeat(300).trim(), 'b', '', 'c '.repeat(50).trim(), 'x'.repeat(200)].join('\n\n');
    const pages = paginate(text, 5);
    for (const page of pages) {
      expect(dialogRows(page)).toBeLessThanOrEqual(5);
      expect(page.startsWith('\n')).toBe(false);
    }
    expect(flat(pages.join(' ')).replace(/x /g, 'x')).toBe(flat(text).replace(/x /g, 'x'));
  });
});

describe('resolveGate with pages', () => {
  function fakeOrca(script: (input: AskInput) => AskOutcome) {
    const asked: AskInput[] = [];
    const orca = {
      options: {},
      history: { stats: () => null, record: () => {} },
      log: () => {},
      asker: { ask: async (input: AskInput) => (asked.push(input), script(input)) },
    } as unknown as GateResolverDeps;
    return { orca, asked };
  }
  const ctx = { sessionID: 'ses_root', ask: async () => {} };
  const signal = new AbortController().signal;
  const answered = (label: string): AskOutcome => ({ kind: 'answered', answers: [[label], ['No guidance']], sessionId: 'ses_q' });
  const gate = approval();

  it('should show every page in order, go back on Previous page, then ask the decision', async () => {
    let backs = 1;
    const { orca, asked } = fakeOrca((input) => {
      const q = input.questions[0]!;
      if (q.header === 'Plan approval') return answered('Approve');
      if (q.header.startsWith('Page 3/') && backs-- > 0) return answered(PAGE_OPTIONS.back);
      return answered(q.options[0]!.label);
    });
    const answer = await resolveGate(orca, gate, ctx, signal);
    expect(answer).toMatchObject({ event: { type: 'approval.approve', channel: 'question' } });
    const n = Number(/\/(\d+)$/.exec(asked[0]!.questions[0]!.header)![1]);
    expect(n).toBeGreaterThan(3);
    const headers = asked.map((a) => a.questions[0]!.header);
    expect(headers).toEqual([...['1', '2', '3', '2', '3'].map((i) => `Page ${i}/${n}`), ...Array.from({ length: n - 3 }, (_, i) => `Page ${i + 4}/${n}`), 'Plan approval']);
    // The same options in the same order on every page, so a digit means the same everywhere.
    expect(asked.at(-2)!.questions[0]!.options.map((o) => o.label)).toEqual([PAGE_OPTIONS.last, PAGE_OPTIONS.back, PAGE_OPTIONS.decide]);
    expect(asked[0]!.questions[0]!.options.map((o) => o.label)).toEqual([PAGE_OPTIONS.next, PAGE_OPTIONS.back, PAGE_OPTIONS.decide]);
  });

  it('should show the first page again on Previous page there, and take a typed answer as Next page', async () => {
    let turn = 0;
    const { orca, asked } = fakeOrca((input) => {
      const q = input.questions[0]!;
      if (q.header === 'Plan approval') return answered('Approve');
      turn++;
      if (turn === 1) return answered(PAGE_OPTIONS.back);
      if (turn === 2) return answered('looks fine, go on');
      return answered(PAGE_OPTIONS.decide);
    });
    await resolveGate(orca, gate, ctx, signal);
    expect(asked.map((a) => a.questions[0]!.header.replace(/\/\d+$/, ''))).toEqual(['Page 1', 'Page 1', 'Page 2', 'Plan approval']);
  });

  it('should go straight to the decision from any page when asked to', async () => {
    const { orca, asked } = fakeOrca((input) => (input.questions[0]!.header === 'Plan approval' ? answered('Reject') : answered(PAGE_OPTIONS.decide)));
    expect(await resolveGate(orca, gate, ctx, signal)).toMatchObject({ event: { type: 'approval.reject' } });
    expect(asked.map((a) => a.questions[0]!.header)).toEqual([expect.stringMatching(/^Page 1\/\d+$/), 'Plan approval']);
  });

  it('should leave the plan waiting at its gate when a page is dismissed, never asking the decision', async () => {
    const { orca, asked } = fakeOrca(() => ({ kind: 'dismissed', sessionId: 'ses_q' }));
    expect(await resolveGate(orca, gate, ctx, signal)).toEqual({ waiting: 'The human dismissed the approval question. The plan is saved and waits at this gate.' });
    expect(asked).toHaveLength(1);
  });
});
