import { afterEach, describe, expect, it } from 'vitest';
import { runAgendaCommand } from '../../src/agenda/bridges/slash-commands.js';
import { agendaCancelTool } from '../../src/tools/agenda-cancel.js';
import { agendaCreateTool } from '../../src/tools/agenda-create.js';
import { agendaEmitTool } from '../../src/tools/agenda-emit.js';
import { agendaEventsTool } from '../../src/tools/agenda-events.js';
import { agendaListTool } from '../../src/tools/agenda-list.js';
import { agendaPauseTool } from '../../src/tools/agenda-pause.js';
import { agendaOrca, removeDir, toolContext, untilAgenda, type AgendaOrca } from '../support/agenda-orca.js';

let a: AgendaOrca;
afterEach(async () => {
  await a.dispose();
  removeDir(a.dir);
});

async function call(tool: { execute(args: never, ctx: never): Promise<unknown> }, args: unknown, sessionID = 'ses_1'): Promise<string> {
  const result = await tool.execute(args as never, toolContext(a.dir, sessionID) as never);
  return typeof result === 'string' ? result : (result as { output: string }).output;
}
const later = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

describe('the agenda tools', () => {
  it("should schedule for the user's session, default a command's session to it, and list, cancel and show events", async () => {
    a = agendaOrca();
    await untilAgenda(a.orca);
    const root = await a.sessions.port.create({ title: 'user' });
    const planner = await a.sessions.port.create({ title: 'planner', parentID: root.id });
    const created = JSON.parse(
      await call(agendaCreateTool(a.orca), { trigger: { type: 'event', eventKind: 'tests.failed' }, action: { type: 'command', command: '/review' }, reason: 'review on red' }, planner.id),
    );
    expect(created).toMatchObject({ scheduled: true, status: 'pending', action: { type: 'command', command: '/review', sessionId: root.id }, summary: expect.stringMatching(/on tests\.failed → run \/review in ses_1/) });
    const item = a.orca.agenda.get(created.agendaId);
    expect([item.createdBy, item.sessionId]).toEqual([planner.id, root.id]);

    const listed = JSON.parse(await call(agendaListTool(a.orca), {}));
    expect(listed).toMatchObject({ paused: false, total: 1, items: [{ agendaId: created.agendaId, status: 'pending' }] });
    expect(JSON.parse(await call(agendaEmitTool(a.orca), { kind: 'deploy.done:prod', message: 'shipped' }, planner.id))).toMatchObject({ emitted: 'deploy.done:prod' });
    expect(JSON.parse(await call(agendaEventsTool(a.orca), { kindFilter: 'deploy.done' }))).toMatchObject({ count: 1, events: [{ event: 'deploy.done:prod', sessionId: root.id, source: 'tool' }] });
    expect(JSON.parse(await call(agendaCancelTool(a.orca), { agendaId: created.agendaId, reason: 'not needed' }))).toMatchObject({ cancelled: true, status: 'cancelled', cancelReason: 'not needed' });
  });

  it('should answer a refusal by a rail as BLOCKED [rule]: why, and bad arguments with what was expected', async () => {
    a = agendaOrca({ agenda: { max_pending_per_session: 1, max_emits_per_session_per_hour: 1 } });
    await untilAgenda(a.orca);
    const create = (minutes: number) => call(agendaCreateTool(a.orca), { trigger: { type: 'time', executeAt: later(minutes) }, action: { type: 'emit', kind: 'x', message: '' }, reason: 'r' });
    expect(JSON.parse(await create(10))).toMatchObject({ scheduled: true });
    expect(await create(20)).toMatch(/^BLOCKED \[max_pending_per_session\]: session ses_1 has 1 pending items \(limit 1\)$/);
    await call(agendaEmitTool(a.orca), { kind: 'a', message: '' });
    expect(await call(agendaEmitTool(a.orca), { kind: 'b', message: '' })).toMatch(/^BLOCKED \[max_emits_per_session_per_hour\]: session ses_1 emitted 1 events in the last hour \(limit 1\)$/);

    const bad = JSON.parse(await call(agendaCreateTool(a.orca), { trigger: 'tomorrow', action: { type: 'plan', message: 'x' }, reason: '' }));
    expect(bad).toMatchObject({ status: 'failure', error_type: 'InvalidToolArgumentsError', error: expect.stringMatching(/`trigger` must be an object whose "type" is one of time, event, cron, got "tomorrow"; `reason` must be a non-empty string/) });
    const typo = JSON.parse(await call(agendaCreateTool(a.orca), { trigger: { type: 'time', executeat: later(30) }, action: { type: 'plan', message: 'x' }, reason: 'r' }));
    expect(typo).toMatchObject({ status: 'failure', error_type: 'AgendaInputError', error: expect.stringMatching(/^Invalid trigger \{"type":"time","executeat":.*executeAt/) });
    const huge = JSON.parse(await call(agendaCreateTool(a.orca), { trigger: { type: 'time', executeAt: 'x'.repeat(10_000) }, action: { type: 'plan', message: 'x' }, reason: 'r' }));
    expect(huge.error.length).toBeLessThan(600);
    expect(huge.error).toContain('characters)');
  });

  it('should pause through the tool, and resume only through the human command', async () => {
    a = agendaOrca();
    await untilAgenda(a.orca);
    expect(JSON.parse(await call(agendaPauseTool(a.orca), {}))).toMatchObject({ paused: true });
    expect(a.orca.agenda.paused).toBe(true);
    expect(await runAgendaCommand(a.orca, 'agenda', '')).toBe('Orca agenda: no pending items. It is PAUSED: nothing fires until /agenda-resume.');
    expect(await runAgendaCommand(a.orca, 'agenda-resume', '')).toBe('Orca agenda: resumed.');
    expect(a.orca.agenda.paused).toBe(false);
  });
});

describe('the agenda slash commands', () => {
  it('should list pending items with the next due time, clear them, and pause', async () => {
    a = agendaOrca();
    await untilAgenda(a.orca);
    for (const minutes of [30, 10]) {
      await a.orca.agenda.request({ op: 'create', trigger: { type: 'time', executeAt: later(minutes) }, action: { type: 'plan', message: 'nightly' }, reason: `in ${minutes}`, createdBy: 'cli' });
    }
    const listed = await runAgendaCommand(a.orca, 'agenda', '');
    expect(listed).toMatch(/^Orca agenda: 2 pending item\(s\), next due \S+\.\n- agn_\w+ pending · at \S+ → start a plan: "nightly" · in 30\n- agn_\w+ pending/);
    expect(await runAgendaCommand(a.orca, 'agenda-clear', '')).toMatch(/^Orca agenda: cancelled 2 item\(s\): agn_\w+, agn_\w+\.$/);
    expect(await runAgendaCommand(a.orca, 'agenda', 'all')).toMatch(/^Orca agenda: 2 item\(s\)\.\n- agn_\w+ cancelled/);
    expect(await runAgendaCommand(a.orca, 'agenda-pause', '')).toBe('Orca agenda: paused. Nothing fires until /agenda-resume.');
  });
});
