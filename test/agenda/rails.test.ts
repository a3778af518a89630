import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgendaBlockedError } from '../../src/agenda/errors.js';
import { newAgendaId } from '../../src/agenda/ids.js';
import { eventsPath } from '../../src/agenda/store.js';
import { at, emitTo, harness, HOUR, item, MINUTE, plan, projectDir, SECOND, T0 } from './harness.js';

const blocked = (fn: () => unknown): AgendaBlockedError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof AgendaBlockedError) return error;
    throw error;
  }
  throw new Error('expected a BLOCKED refusal');
};

const onEvent = (eventKind: string | string[]) => ({ type: 'event', eventKind });

describe('agenda rails at create time', () => {
  it('should refuse the 31st pending item of the project, and write nothing', () => {
    const h = harness();
    for (let i = 0; i < 30; i++) h.agenda.create(item(at(T0 + (i + 1) * 10 * MINUTE), emitTo('x')));
    const error = blocked(() => h.agenda.create(item(at(T0 + 400 * MINUTE), emitTo('x'))));
    expect(error.message).toBe('BLOCKED [max_pending_project]: 30 items are pending in this project (limit 30); cancel some first');
    expect(error.rule).toBe('max_pending_project');
    expect(h.lines()).toHaveLength(30);
    h.agenda.cancel(h.agenda.list()[0]!.agendaId);
    expect(h.agenda.create(item(at(T0 + 400 * MINUTE), emitTo('x'))).status).toBe('pending');
  });

  it("should refuse a session's 11th pending item; a command action counts for the session it targets", () => {
    const h = harness();
    for (let i = 0; i < 9; i++) h.agenda.create(item(at(T0 + (i + 1) * 10 * MINUTE), emitTo('x'), { sessionId: 'ses_a' }));
    // Created from ses_b, but it runs /review in ses_a.
    h.agenda.create(item(onEvent('ci.done'), { type: 'command', command: '/review', sessionId: 'ses_a' }, { sessionId: 'ses_b' }));
    expect(blocked(() => h.agenda.create(item(onEvent('x'), emitTo('y'), { sessionId: 'ses_a' }))).message).toBe(
      'BLOCKED [max_pending_per_session]: session ses_a has 10 pending items (limit 10)',
    );
    expect(h.agenda.create(item(onEvent('x'), emitTo('y'), { sessionId: 'ses_b' })).status).toBe('pending');
  });

  it('should keep time items min_interval_seconds (60) apart, before and after', () => {
    const h = harness();
    const first = h.agenda.create(item(at(T0 + 10 * MINUTE), emitTo('x')));
    for (const offset of [59 * SECOND, -59 * SECOND, 0]) {
      expect(blocked(() => h.agenda.create(item(at(T0 + 10 * MINUTE + offset), emitTo('x')))).message).toBe(
        `BLOCKED [min_interval_seconds]: ${first.agendaId} is due within 60 s of ${new Date(T0 + 10 * MINUTE + offset).toISOString()}; choose another time`,
      );
    }
    expect(h.agenda.create(item(at(T0 + 11 * MINUTE), emitTo('x'))).status).toBe('pending');
    expect(h.agenda.create(item(at(T0 + 9 * MINUTE), emitTo('x'))).status).toBe('pending');
  });

  it('should refuse a cron item that fires more often than min_interval_seconds', () => {
    const h = harness();
    expect(blocked(() => h.agenda.create(item({ type: 'cron', expression: '*/30 * * * * *' }, emitTo('x')))).message).toBe(
      'BLOCKED [min_interval_seconds]: cron "*/30 * * * * *" fires every 30 s (at least 60 s apart expected)',
    );
    expect(h.agenda.create(item({ type: 'cron', expression: '* * * * *' }, emitTo('x'))).status).toBe('pending');
  });

  it('should refuse a 6th pending item on one event kind, whatever the subject', () => {
    const h = harness();
    for (const kind of ['tests.passed', 'tests.passed:plan_A', ['tests.passed', 'lint.ok'], 'tests.passed', 'tests.passed:plan_B']) {
      h.agenda.create(item(onEvent(kind), emitTo('x')));
    }
    expect(blocked(() => h.agenda.create(item(onEvent(['deploy.done', 'tests.passed']), emitTo('x')))).message).toBe(
      'BLOCKED [max_pending_per_event_kind]: 5 pending items already wait for "tests.passed" (limit 5)',
    );
    expect(h.agenda.create(item(onEvent('lint.ok'), emitTo('x'))).status).toBe('pending');
  });

  it('should refuse the 31st emit of a session within an hour, and allow it an hour later', () => {
    const h = harness();
    for (let i = 0; i < 30; i++) {
      h.agenda.emit('ping', `${i}`, { sessionId: 'ses_a' });
      h.now.ms += 60 * SECOND;
    }
    expect(blocked(() => h.agenda.emit('ping', 'again', { sessionId: 'ses_a' })).message).toBe(
      'BLOCKED [max_emits_per_session_per_hour]: session ses_a emitted 30 events in the last hour (limit 30)',
    );
    expect(h.agenda.emit('ping', 'other session', { sessionId: 'ses_b' }).event).toBe('ping');
    expect(h.agenda.emit('ping', 'from the CLI', { source: 'cli' }).source).toBe('cli');
    h.now.ms = T0 + HOUR + 1; // the first emit has left the window
    expect(h.agenda.emit('ping', 'later', { sessionId: 'ses_a' }).event).toBe('ping');
  });

  it('should refuse a plan item past max_plans_per_day, counting pending plans and a cron item by its firings within 24 h', () => {
    const h = harness();
    for (let i = 0; i < 20; i++) h.agenda.create(item(at(T0 + (i + 1) * 10 * MINUTE), plan()));
    expect(blocked(() => h.agenda.create(item(onEvent('release.tagged'), plan()))).message).toBe(
      'BLOCKED [max_plans_per_day]: it would bring the plans started or due within 24 hours to 21 (limit 20)',
    );
    expect(h.agenda.create(item(onEvent('release.tagged'), emitTo('x'))).status).toBe('pending');
    const fresh = harness();
    expect(blocked(() => fresh.agenda.create(item({ type: 'cron', expression: '0 * * * *' }, plan()))).rule).toBe('max_plans_per_day');
    expect(fresh.agenda.create(item({ type: 'cron', expression: '0 9 * * *' }, plan())).status).toBe('pending');
  });

  it('should refuse a gate command or /agenda-resume, also inside a schedule action: an LLM is never a gate', () => {
    const h = harness();
    const command = (name: string) => ({ type: 'command', command: name, sessionId: 'ses_a' });
    for (const name of ['/orca-approve', 'orca-changes', '/orca-reject', '/orca-retry', '/orca-replan', '/orca-stop', '/ORCA-CONTINUE']) {
      expect(blocked(() => h.agenda.create(item(onEvent('x'), command(name)))).message).toMatch(
        /^BLOCKED \[gate_command\]: \/orca-[a-z]+ answers a human gate; an agenda item never does \(an LLM is never a gate\)$/,
      );
    }
    expect(blocked(() => h.agenda.create(item(onEvent('x'), command('/agenda-resume')))).message).toBe(
      'BLOCKED [gate_command]: /agenda-resume is for a human: no item resumes a paused agenda',
    );
    const nested = { type: 'schedule', reason: 'later', trigger: onEvent('y'), action: command('/orca-approve') };
    expect(blocked(() => h.agenda.create(item(onEvent('x'), nested))).rule).toBe('gate_command');
    expect(h.agenda.create(item(onEvent('x'), command('/review'))).status).toBe('pending');
    expect(h.lines()).toHaveLength(1);
  });
});

describe('agenda rails at run time', () => {
  it('should fail a gate command found in the log (written by hand or an older version) without running it', async () => {
    const dir = projectDir();
    const agendaId = newAgendaId(T0);
    mkdirSync(dirname(eventsPath(dir)), { recursive: true });
    const created = {
      type: 'agenda.created',
      at: new Date(T0).toISOString(),
      agendaId,
      trigger: at(T0),
      action: { type: 'command', command: '/orca-approve', sessionId: 'ses_a' },
      reason: 'approve my own plan',
      createdBy: 'ses_a',
      depth: 0,
    };
    appendFileSync(eventsPath(dir), `${JSON.stringify(created)}\n`);
    const h = harness({ dir });
    const report = await h.agenda.tick();
    expect(h.calls).toEqual([]);
    expect(report.fired).toEqual([
      expect.objectContaining({ agendaId, status: 'failed', detail: expect.stringMatching(/^BLOCKED \[gate_command\]: \/orca-approve/) }),
    ]);
    expect(h.agenda.get(agendaId).status).toBe('failed');
  });

  it('should count a daily cron plan once a day, the 24-hour window sliding', async () => {
    const h = harness({ limits: { max_plans_per_day: 1 } });
    const daily = h.agenda.create(item({ type: 'cron', expression: '0 9 * * *' }, plan('daily')));
    expect(blocked(() => h.agenda.create(item({ type: 'event', eventKind: 'x' }, plan('more')))).rule).toBe('max_plans_per_day');
    h.now.ms = Date.parse('2030-01-07T09:00:00Z');
    await h.agenda.tick();
    expect(h.agenda.get(daily.agendaId)).toMatchObject({ status: 'pending', firings: 1, lastResult: 'ran plan' });
    // The next firing comes 24 h later: the started one has just left the window.
    h.now.ms = Date.parse('2030-01-08T09:00:00Z');
    await h.agenda.tick();
    expect(h.calls).toHaveLength(2);
    expect(h.agenda.get(daily.agendaId).lastError).toBeNull();
  });

  it('should refuse a plan firing at run time when the day already started the limit', async () => {
    const h = harness({ limits: { max_plans_per_day: 3 } });
    const a = h.agenda.create(item(at(T0), plan('a')));
    const b = h.agenda.create(item(at(T0 + 2 * MINUTE), plan('b')));
    h.now.ms = T0 + 3 * MINUTE;
    const restarted = h.reopen({ max_plans_per_day: 1 });
    const report = await restarted.agenda.tick();
    expect(report.fired.map((f) => [f.agendaId, f.status])).toEqual([
      [a.agendaId, 'executed'],
      [b.agendaId, 'failed'],
    ]);
    expect(restarted.agenda.get(b.agendaId).lastError).toBe(
      'BLOCKED [max_plans_per_day]: 1 plans were started by the agenda in the last 24 hours (limit 1)',
    );
    expect(restarted.calls).toHaveLength(1);
  });
});
