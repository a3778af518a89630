import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgendaStore } from '../../../src/agenda/store.js';
import { newAgendaId } from '../../../src/agenda/ids.js';
import { runGateCommand } from '../../../src/hitl/commands.js';
import { agendaOrca, removeDir, untilAgenda, type AgendaOrca } from '../../support/agenda-orca.js';
import { waitFor } from '../../support/wait-for.js';

let running: AgendaOrca[] = [];
afterEach(async () => {
  for (const a of running.splice(0)) {
    await a.dispose();
    removeDir(a.dir);
  }
});
const start = (...args: Parameters<typeof agendaOrca>) => {
  const a = agendaOrca(...args);
  running.push(a);
  return a;
};

const planFile = (a: AgendaOrca, planId: string) => JSON.parse(readFileSync(join(a.dir, '.opencode', 'plans', `${planId}.json`), 'utf8'));
const now = () => new Date().toISOString();
const item = (trigger: unknown, action: unknown, reason = 'test') => ({ op: 'create' as const, trigger, action, reason, createdBy: 'ses_user', sessionId: 'ses_user' });
async function create(a: AgendaOrca, trigger: unknown, action: unknown) {
  const outcome = await a.orca.agenda.request(item(trigger, action));
  if (outcome.status !== 'done' || outcome.reply.op !== 'create') throw new Error('not created');
  return outcome.reply.item.agendaId;
}
const settled = (a: AgendaOrca, agendaId: string) =>
  waitFor(() => ['executed', 'failed'].includes(a.orca.agenda.get(agendaId).status) && a.orca.agenda.get(agendaId), { timeoutMs: 10_000, description: `${agendaId} to settle` });

describe('agenda actions over the plan host', () => {
  it('starts a plan that stops at pending_approval and records the firing; /orca-approve runs it, and its plan.completed fires a follow-up', async () => {
    const a = start();
    await untilAgenda(a.orca);
    const id = await create(a, { type: 'time', executeAt: now() }, { type: 'plan', message: 'run the nightly checks' });
    const fired = await settled(a, id);
    expect(fired).toMatchObject({ status: 'executed', lastResult: expect.stringMatching(/proposed "Run the nightly checks" \(2 step\(s\)\): waits for approval/) });
    const planId = fired.planId!;
    await a.orca.host.settled(planId); // the file is written behind the plan
    expect(planFile(a, planId)).toMatchObject({ status: 'pending_approval', waiting_for: 'approval', agenda_item: { agenda_id: id, firing: 1 } });
    expect(a.sessions.prompts.filter((p) => p.agent !== 'planner')).toEqual([]); // no step before approval

    const followUp = await create(a, { type: 'event', eventKind: `plan.completed:${planId}` }, { type: 'emit', kind: 'nightly.done', message: 'checked' });
    expect(runGateCommand(a.orca, 'orca-approve', planId, 'ses_user')).toBe(`Orca: Approve recorded for plan ${planId}. It runs now; orca plans and orca show follow it.`);
    await waitFor(() => planFile(a, planId).status === 'completed', { timeoutMs: 10_000, description: 'the plan to complete' });
    expect(await settled(a, followUp)).toMatchObject({ status: 'executed', lastResult: 'emitted nightly.done' });
    const bus = a.orca.agenda.events();
    expect(bus.map((e) => e.event)).toEqual([`plan.completed:${planId}`, 'nightly.done']);
  });

  it('applies hitl.auto.approval to a plan it started (the follower), logged as an auto decision', async () => {
    const a = start({ hitl: { auto: { approval: 'approve' } } });
    await untilAgenda(a.orca);
    const id = await create(a, { type: 'time', executeAt: now() }, { type: 'plan', message: 'headless' });
    const fired = await settled(a, id);
    expect(fired.lastResult).toMatch(/approved \(auto policy hitl\.auto\.approval=approve\); running|completed/);
    await waitFor(() => planFile(a, fired.planId!).status === 'completed', { timeoutMs: 10_000, description: 'the plan to complete' });
    expect(planFile(a, fired.planId!).decisions).toMatchObject([{ gate: 'approval', option: 'Approve', channel: 'auto' }]);
  });

  it('fails a firing whose planner fails, naming the plan', async () => {
    const a = start({}, undefined, () => {
      throw new Error('provider outage');
    });
    await untilAgenda(a.orca);
    const id = await create(a, { type: 'time', executeAt: now() }, { type: 'plan', message: 'x' });
    expect(await settled(a, id)).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/^plan_\w{26}: the planner failed: .*provider outage/) });
  });

  it('resumes a waiting plan and runs a command action; a gate command is BLOCKED', async () => {
    const a = start();
    await untilAgenda(a.orca);
    const planId = (await settled(a, await create(a, { type: 'time', executeAt: now() }, { type: 'plan', message: 'p' }))).planId!;
    const resume = await create(a, { type: 'event', eventKind: 'provider.back' }, { type: 'resume', plan_id: planId, message: 'go on' });
    const command = await create(a, { type: 'event', eventKind: 'provider.back' }, { type: 'command', command: '/review', arguments: 'src', sessionId: 'ses_user' });
    await a.orca.agenda.request({ op: 'emit', kind: 'provider.back', message: '', source: 'cli' });
    expect(await settled(a, resume)).toMatchObject({ status: 'executed', lastResult: expect.stringMatching(/resumed: .*waits for approval.*\(its message was not delivered: the plan waits for approval\)/) });
    expect(await settled(a, command)).toMatchObject({ status: 'executed', lastResult: '/review ran in ses_user: ran /review' });
    expect(a.commands).toEqual([{ sessionId: 'ses_user', command: 'review', arguments: 'src' }]);
    await expect(a.orca.agenda.request(item({ type: 'time', executeAt: now() }, { type: 'command', command: '/orca-approve', sessionId: 'ses_user' }))).rejects.toThrow(
      /^BLOCKED \[gate_command\]: \/orca-approve answers a human gate/,
    );
    await a.orca.host.settled(planId);
    expect(planFile(a, planId).status).toBe('pending_approval');
  });

  it('after a crash, finds the plan a started firing created instead of running it again, and fails one that created none', async () => {
    const first = start();
    await untilAgenda(first.orca);
    const withPlan = newAgendaId();
    const without = newAgendaId();
    const planId = first.orca.host.create({ message: 'made before the crash', agendaItem: { agenda_id: withPlan, firing: 1 } }).getSnapshot().context.plan_id;
    await first.dispose();
    running = [];
    // The log as a process killed between agenda.started and the firing's outcome leaves it.
    const at = now();
    const store = AgendaStore.open(first.dir);
    for (const agendaId of [withPlan, without]) {
      store.append(
        { type: 'agenda.created', at, agendaId, trigger: { type: 'time', executeAt: at }, action: { type: 'plan', message: 'm' }, reason: 'r', createdBy: 'cli', depth: 0 },
        { type: 'agenda.started', at, agendaId, firing: 1, dueAt: at, depth: 0 },
      );
    }
    const second = start({}, first.dir);
    await untilAgenda(second.orca);
    expect(await settled(second, withPlan)).toMatchObject({ status: 'executed', planId, lastResult: expect.stringMatching(/was created before the restart .*; not started again/) });
    expect(await settled(second, without)).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/before its plan was created \(no plan records agn_\w+#1\); not run again/) });
    expect(second.orca.host.index.getSnapshot().context.plans).toEqual({ [planId]: expect.anything() });
  });
});
