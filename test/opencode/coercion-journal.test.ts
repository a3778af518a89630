import { afterEach, describe, expect, it } from 'vitest';
import { entryText } from '../../src/cli/history.js';
import { readJournal } from '../../src/persistence/journal.js';
import { timelineOf } from '../../src/ui/timeline-view.js';
import { agendaOrca, removeDir, twoSteps, type AgendaOrca } from '../support/agenda-orca.js';
import { waitFor } from '../support/wait-for.js';

let running: AgendaOrca | undefined;
afterEach(async () => {
  if (!running) return;
  await running.dispose();
  removeDir(running.dir);
  running = undefined;
});

/** The planner's reply as a model writes it: a fenced plan with a comment and strings where lists go. */
const sloppyPlan = [
  'Here is the plan.',
  '',
  '```json',
  '{',
  '  "type": "plan",',
  `  "goal": ${JSON.stringify(twoSteps.goal)},`,
  `  "steps": ${JSON.stringify(twoSteps.steps)},`,
  '  // nothing assumed beyond the repository',
  '  "assumptions": "The checks are npm scripts",',
  '  "risks": [],',
  '  "verification": "npm test"',
  '}',
  '```',
].join('\n');

describe('an answer accepted with slips forgiven', () => {
  it("should be a coercion line of the plan's journal, said in words by orca show and the viewer", async () => {
    const a = (running = agendaOrca({}, undefined, () => sloppyPlan));
    const created = await a.orca.agenda.request({ op: 'create', trigger: { type: 'time', executeAt: new Date().toISOString() }, action: { type: 'plan', message: 'nightly' }, reason: 'test', createdBy: 'ses_user', sessionId: 'ses_user' });
    if (created.status !== 'done' || created.reply.op !== 'create') throw new Error('not created');
    const agendaId = created.reply.item.agendaId;
    const fired = await waitFor(() => ['executed', 'failed'].includes(a.orca.agenda.get(agendaId).status) && a.orca.agenda.get(agendaId), { timeoutMs: 10_000, description: 'the plan to start' });
    expect(fired).toMatchObject({ status: 'executed', lastResult: expect.stringMatching(/waits for approval/) });
    const planId = fired.planId!;
    await a.orca.host.settled(planId);

    const journal = readJournal(a.orca.store.journalPathOf(planId));
    const coercions = journal.filter((e) => e.kind === 'coercion');
    expect(coercions).toEqual([
      {
        at: expect.any(String),
        kind: 'coercion',
        role: 'planner',
        agent: 'planner',
        session_id: expect.any(String),
        coerced: ['JSONC: comments removed', 'assumptions: a string taken as a one-item list', 'verification: a string taken as a one-item list'],
      },
    ]);
    expect(entryText(coercions[0]!)).toBe(
      "planner's answer accepted with slips forgiven: JSONC: comments removed; assumptions: a string taken as a one-item list; verification: a string taken as a one-item list",
    );
    expect(timelineOf(coercions).items).toEqual([{ at: coercions[0]!.at, kind: 'coercion', text: entryText(coercions[0]!) }]); // the viewer says it in the same words
    expect(a.sessions.prompts.filter((p) => p.agent === 'planner')).toHaveLength(1);
  });
});
