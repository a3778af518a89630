import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAgendaCommand } from '../../src/agenda/bridges/slash-commands.js';
import { AGENDA_DESCRIPTION, agendaTool } from '../../src/tools/agenda.js';
import { agendaOrca, removeDir, toolContext, untilAgenda, type AgendaOrca } from '../support/agenda-orca.js';

let a: AgendaOrca | undefined;
afterEach(async () => {
  await a?.dispose();
  if (a) removeDir(a.dir);
  a = undefined;
});

async function call(args: unknown, sessionID = 'ses_1', agent = 'planner'): Promise<string> {
  const result = await agendaTool(a!.orca).execute(args as never, { ...toolContext(a!.dir, sessionID), agent } as never);
  return typeof result === 'string' ? result : (result as { output: string }).output;
}
const later = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

describe('the agenda tool', () => {
  it('should carry one short definition: every op and the usual triggers and actions, in under 800 characters as OpenCode sends it', () => {
    const tool = agendaTool({} as never);
    // As OpenCode 1.18 turns a plugin tool into the request's `tools` entry (io: input).
    const sent = JSON.stringify({ type: 'function', function: { name: 'agenda', description: tool.description, parameters: z.toJSONSchema(z.object(tool.args), { io: 'input' }) } });
    expect(sent.length).toBeLessThan(800);
    for (const word of ['create{trigger,action,reason}', 'list', 'cancel{agendaId}', 'emit{kind,message}', 'events', 'pause', 'type:time', 'type:cron', 'type:event', 'type:plan', 'type:resume', 'type:command', 'type:emit']) {
      expect(AGENDA_DESCRIPTION).toContain(word);
    }
  });

  it("should schedule for the user's session, default a command's session to it, and list, cancel and show events", async () => {
    a = agendaOrca();
    await untilAgenda(a.orca);
    const root = await a.sessions.port.create({ title: 'user' });
    const planner = await a.sessions.port.create({ title: 'planner', parentID: root.id });
    const created = JSON.parse(await call({ op: 'create', trigger: { type: 'event', eventKind: 'tests.failed' }, action: { type: 'command', command: '/review' }, reason: 'review on red' }, planner.id));
    expect(created).toMatchObject({ scheduled: true, status: 'pending', action: { type: 'command', command: '/review', sessionId: root.id }, summary: expect.stringMatching(/on tests\.failed → run \/review in ses_1/) });
    expect(created.tell_user).toMatch(/agendaId, when it fires and what it does/);
    const item = a.orca.agenda.get(created.agendaId);
    expect([item.createdBy, item.sessionId]).toEqual([planner.id, root.id]);

    const listed = JSON.parse(await call({ op: 'list' }));
    expect(listed).toMatchObject({ paused: false, active: 1, items: [{ agendaId: created.agendaId, status: 'pending' }], finished: { total: 0, latest: [] } });
    expect(JSON.parse(await call({ op: 'emit', kind: 'deploy.done:prod', message: 'shipped' }, planner.id))).toMatchObject({ emitted: 'deploy.done:prod' });
    expect(JSON.parse(await call({ op: 'events', kind: 'deploy.done' }))).toMatchObject({ count: 1, events: [{ event: 'deploy.done:prod', sessionId: root.id, source: 'tool' }] });
    expect(JSON.parse(await call({ op: 'cancel', agendaId: created.agendaId, reason: 'not needed' }))).toMatchObject({ cancelled: true, status: 'cancelled', cancelReason: 'not needed' });
    // A finished item leaves the active list for the latest finished ones.
    expect(JSON.parse(await call({ op: 'list' }))).toMatchObject({ active: 0, items: [], finished: { total: 1, latest: [{ agendaId: created.agendaId, status: 'cancelled' }] } });
  });

  it('should answer a refusal by a rail as BLOCKED [rule]: why, and bad arguments with what was expected', async () => {
    a = agendaOrca({ agenda: { max_pending_per_session: 1, max_emits_per_session_per_hour: 1 } });
    await untilAgenda(a.orca);
    const create = (minutes: number) => call({ op: 'create', trigger: { type: 'time', executeAt: later(minutes) }, action: { type: 'emit', kind: 'x', message: '' }, reason: 'r' });
    expect(JSON.parse(await create(10))).toMatchObject({ scheduled: true });
    expect(await create(20)).toMatch(/^BLOCKED \[max_pending_per_session\]: session ses_1 has 1 pending items \(limit 1\)$/);
    await call({ op: 'emit', kind: 'a', message: '' });
    expect(await call({ op: 'emit', kind: 'b', message: '' })).toMatch(/^BLOCKED \[max_emits_per_session_per_hour\]: session ses_1 emitted 1 events in the last hour \(limit 1\)$/);

    const bad = JSON.parse(await call({ op: 'create', trigger: 'tomorrow', action: { type: 'plan', message: 'x' }, reason: '' }));
    expect(bad).toMatchObject({ status: 'failure', error_type: 'InvalidToolArgumentsError', error: expect.stringMatching(/^agenda op create was called with invalid arguments: `trigger` must be an object: \{"type":"time","executeAt":.*got "tomorrow"; `reason` must be a non-empty string/) });
    expect(bad.expected.action).toContain('{"type":"schedule","trigger","action","reason"}');
    const typo = JSON.parse(await call({ op: 'create', trigger: { type: 'time', executeat: later(30) }, action: { type: 'plan', message: 'x' }, reason: 'r' }));
    expect(typo).toMatchObject({ status: 'failure', error_type: 'AgendaInputError', error: expect.stringMatching(/^Invalid trigger \{"type":"time","executeat":.*executeAt/) });
    const huge = JSON.parse(await call({ op: 'create', trigger: { type: 'time', executeAt: 'x'.repeat(10_000) }, action: { type: 'plan', message: 'x' }, reason: 'r' }));
    expect(huge.error.length).toBeLessThan(600);
    expect(huge.error).toContain('characters)');
    // An argument of another op, an unknown op, no op at all.
    expect(JSON.parse(await call({ op: 'list', agendaId: 'agn_x' })).error).toMatch(/^agenda op list was called with invalid arguments: unexpected argument `agendaId`/);
    for (const [args, got] of [[{ op: 'resume' }, 'got "resume"'], [{ action: { type: 'plan', message: 'x' } }, 'got nothing'], ['list', 'got "list"']] as const) {
      const reply = JSON.parse(await call(args));
      expect(reply).toMatchObject({ status: 'failure', error_type: 'InvalidToolArgumentsError', expected: { op: expect.stringContaining('create {trigger, action, reason}') } });
      expect(reply.error).toContain(got);
    }
  });

  it('should let a specialist of Orca emit and list only, and an agent of the user do anything', async () => {
    a = agendaOrca();
    await untilAgenda(a.orca);
    const refused = JSON.parse(await call({ op: 'create', trigger: { type: 'time', executeAt: later(10) }, action: { type: 'plan', message: 'x' }, reason: 'r' }, 'ses_1', 'tester'));
    expect(refused).toMatchObject({ status: 'failure', error_type: 'RefusedError', error: "agenda op create is the planner's: tester may only emit and list. Nothing was done." });
    expect(a.orca.agenda.list()).toEqual([]);
    for (const op of ['cancel', 'events', 'pause']) expect(JSON.parse(await call({ op }, 'ses_1', 'coder')).error_type).toBe('RefusedError');
    expect(JSON.parse(await call({ op: 'emit', kind: 'tests.failed', message: 'red' }, 'ses_1', 'tester'))).toMatchObject({ emitted: 'tests.failed' });
    expect(JSON.parse(await call({ op: 'list' }, 'ses_1', 'tester'))).toMatchObject({ active: 0 });
    expect(JSON.parse(await call({ op: 'create', trigger: { type: 'time', executeAt: later(10) }, action: { type: 'emit', kind: 'x', message: '' }, reason: 'r' }, 'ses_1', 'build'))).toMatchObject({ scheduled: true });
  });

  it('should pause through the tool, and resume only through the human command', async () => {
    a = agendaOrca();
    await untilAgenda(a.orca);
    expect(JSON.parse(await call({ op: 'pause' }))).toMatchObject({ paused: true });
    expect(a.orca.agenda.paused).toBe(true);
    expect(JSON.parse(await call({ op: 'resume' })).error).toContain('`op` must be one of create');
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
