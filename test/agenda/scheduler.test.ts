import { mkdirSync, rmSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { Agenda } from '../../src/agenda/agenda.js';
import { eventsPath } from '../../src/agenda/store.js';
import { at, deferred, emitTo, harness, HOUR, item, MINUTE, plan, projectDir, T0 } from './harness.js';

const onEvent = (eventKind: string | string[]) => ({ type: 'event', eventKind });

describe('agenda tick', () => {
  it('should run a time item when due, appending agenda.started before the action and its outcome after', async () => {
    const h = harness();
    const report = h.agenda.create(item(at(T0 + 10 * MINUTE), plan('weekly report'), { sessionId: 'ses_a', reason: 'every Monday' }));
    let linesSeenByAction: string[] = [];
    h.executor.fn = async () => {
      linesSeenByAction = h.lines().map((l) => l.type);
      return { result: 'plan_01 created, waiting for approval', planId: 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9', actualSessionId: 'ses_planner' };
    };
    h.now.ms = T0 + 10 * MINUTE - 1;
    expect((await h.agenda.tick()).fired).toEqual([]);
    h.now.ms = T0 + 10 * MINUTE;
    const tick = await h.agenda.tick();
    expect(tick.fired).toEqual([{ agendaId: report.agendaId, firing: 1, status: 'executed', late: false, detail: 'plan_01 created, waiting for approval' }]);
    expect(linesSeenByAction).toEqual(['agenda.created', 'agenda.started']);
    expect(h.calls).toEqual([
      {
        agendaId: report.agendaId,
        firing: 1,
        idempotencyKey: `${report.agendaId}#1`,
        action: { type: 'plan', message: 'weekly report' },
        reason: 'every Monday',
        createdBy: 'ses_a',
        sessionId: 'ses_a',
        late: false,
        dueAt: new Date(T0 + 10 * MINUTE).toISOString(),
      },
    ]);
    expect(h.agenda.get(report.agendaId)).toMatchObject({ status: 'executed', planId: 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9', firings: 1 });
    expect(h.lines().at(-1)).toMatchObject({ type: 'agenda.executed', actualSessionId: 'ses_planner', planId: 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9' });
    expect(h.toasts).toEqual([expect.objectContaining({ variant: 'success', title: 'Agenda item executed' })]);
    expect((await h.agenda.tick()).fired).toEqual([]);
    expect(h.calls).toHaveLength(1);
  });

  it("should record the executor's rejection as agenda.failed, with its message", async () => {
    const h = harness();
    const cmd = h.agenda.create(item(at(T0), { type: 'command', command: '/review', sessionId: 'ses_gone' }));
    h.executor.fn = async () => {
      throw new Error('session ses_gone does not exist');
    };
    const tick = await h.agenda.tick();
    expect(tick.fired[0]).toMatchObject({ status: 'failed', detail: 'session ses_gone does not exist' });
    expect(h.agenda.get(cmd.agendaId)).toMatchObject({ status: 'failed', lastError: 'session ses_gone does not exist' });
    expect(h.toasts.at(-1)).toMatchObject({ variant: 'error', title: 'Agenda item failed' });
  });

  it('should fire items that came due while no server ran at the next start, marked late', async () => {
    const h = harness();
    const missed = h.agenda.create(item(at(T0 + 5 * MINUTE), emitTo('reminder')));
    h.now.ms = T0 + 3 * HOUR;
    const restarted = h.reopen();
    restarted.agenda.start();
    await restarted.agenda.stop();
    expect(restarted.agenda.get(missed.agendaId)).toMatchObject({ status: 'executed', late: true });
    expect(restarted.lines().find((l) => l.type === 'agenda.started')).toMatchObject({ late: true, dueAt: new Date(T0 + 5 * MINUTE).toISOString() });
    expect(restarted.toasts[0]).toMatchObject({ title: 'Agenda item executed late' });
  });

  it('should run a wave in the order items came due, so a cancel action consumes an item due after it', async () => {
    const h = harness();
    const target = h.agenda.create(item(at(T0 + 2 * MINUTE), plan('obsolete')));
    const canceller = h.agenda.create(item(at(T0 + MINUTE), { type: 'cancel', scheduleId: target.agendaId, reason: 'superseded' }));
    h.now.ms = T0 + 5 * MINUTE; // both due in the first wave
    const report = await h.agenda.tick();
    expect(report.fired.map((f) => [f.agendaId, f.status, f.detail])).toEqual([[canceller.agendaId, 'executed', `cancelled ${target.agendaId}`]]);
    expect(h.calls).toEqual([]);
    expect(h.agenda.get(target.agendaId)).toMatchObject({ status: 'cancelled', cancelReason: 'superseded' });
    expect(h.lines().find((l) => l.type === 'agenda.cancelled')).toMatchObject({ cause: { agendaId: canceller.agendaId, firing: 1 } });
  });

  it('should fail a cancel action whose item is no longer pending', async () => {
    const h = harness();
    const early = h.agenda.create(item(at(T0), plan('early')));
    const canceller = h.agenda.create(item(at(T0 + MINUTE), { type: 'cancel', scheduleId: early.agendaId, reason: 'too late' }));
    h.now.ms = T0 + 5 * MINUTE;
    const report = await h.agenda.tick();
    // The plan firing runs beside the tick: when the cancel runs, its target is running, not pending.
    expect(report.fired.map((f) => [f.agendaId, f.status, f.detail])).toEqual([
      [early.agendaId, 'executed', 'ran plan'],
      [canceller.agendaId, 'failed', `cancel: ${early.agendaId} is running; only a pending item can be cancelled`],
    ]);
  });
});

describe('agenda cascades', () => {
  it('should drain breadth-first: emit → matching item → nested schedule → … until max_cascade_depth, reported', async () => {
    const h = harness({ limits: { max_cascade_depth: 3 } });
    // Wave 0: A emits build.done (event depth 1). Wave 1: B schedules C at depth 2. Wave 2: C emits
    // deploy.done (depth 3). Wave 3: D would run at depth 3: refused.
    const a = h.agenda.create(item(at(T0), emitTo('build.done', 'built')));
    const sibling = h.agenda.create(item(at(T0 + MINUTE), emitTo('noise')));
    const b = h.agenda.create(
      item(onEvent('build.done'), { type: 'schedule', reason: 'deploy after build', trigger: at(T0 + 2 * MINUTE), action: emitTo('deploy.done', 'deployed') }),
    );
    const d = h.agenda.create(item(onEvent('deploy.done'), plan('announce the release')));
    h.now.ms = T0 + 2 * MINUTE;
    const report = await h.agenda.tick();
    const c = h.agenda.list({ status: 'all' }).find((i) => i.createdBy === `agenda:${b.agendaId}`)!;
    expect(report.fired.map((f) => [f.agendaId, f.status])).toEqual([
      [a.agendaId, 'executed'],
      [sibling.agendaId, 'executed'],
      [b.agendaId, 'executed'],
      [c.agendaId, 'executed'],
      [d.agendaId, 'failed'],
    ]);
    expect(c).toMatchObject({ depth: 2, status: 'executed', trigger: at(T0 + 2 * MINUTE) });
    expect(h.lines().filter((l) => l.type === 'agenda.started').map((l) => l.depth)).toEqual([0, 0, 1, 2, 3]);
    expect(h.calls).toEqual([]);
    expect(h.agenda.get(d.agendaId).lastError).toBe(
      `BLOCKED [max_cascade_depth]: ${d.agendaId} was fired at cascade depth 3 (limit 3); the cascade stops here`,
    );
    expect(report.notices).toEqual([`max_cascade_depth (3) reached: ${d.agendaId} was not run`]);
    expect(h.logs.some((l) => l.startsWith('warn agenda: BLOCKED [max_cascade_depth]'))).toBe(true);
  });

  it('should refuse a schedule action whose new item would pass max_cascade_depth', async () => {
    const h = harness({ limits: { max_cascade_depth: 2 } });
    h.agenda.create(item(at(T0), emitTo('step.one')));
    const b = h.agenda.create(item(onEvent('step.one'), { type: 'schedule', reason: 'next', trigger: onEvent('step.two'), action: emitTo('x') }));
    await h.agenda.tick();
    expect(h.agenda.get(b.agendaId)).toMatchObject({
      status: 'failed',
      lastError: 'BLOCKED [max_cascade_depth]: this item would be cascade hop 2 (limit 2); the cascade stops here',
    });
    expect(h.agenda.list({ status: 'all' })).toHaveLength(2);
  });

  it("should hold an item's emits to its session's hourly emit limit", async () => {
    const h = harness({ limits: { max_emits_per_session_per_hour: 1 } });
    h.agenda.emit('ping', '', { sessionId: 'ses_a' });
    const chatty = h.agenda.create(item(at(T0), emitTo('ping'), { sessionId: 'ses_a' }));
    await h.agenda.tick();
    expect(h.agenda.get(chatty.agendaId).lastError).toBe('BLOCKED [max_emits_per_session_per_hour]: session ses_a emitted 1 events in the last hour (limit 1)');
  });
});

describe('agenda exactly once', () => {
  it('should reconcile a firing started before a crash instead of running it again', async () => {
    const h = harness();
    const job = h.agenda.create(item(at(T0), plan('nightly triage')));
    h.executor.fn = () => new Promise(() => {}); // the process dies while the plan action runs
    void h.agenda.tick();
    await Promise.resolve();
    expect(h.calls).toHaveLength(1);
    expect(h.lines().map((l) => l.type)).toEqual(['agenda.created', 'agenda.started']);

    const restarted = h.reopen();
    expect(restarted.agenda.get(job.agendaId).status).toBe('running');
    restarted.reconciler.fn = async (r) => ({ outcome: 'executed', result: `found the plan recording ${r.idempotencyKey}`, planId: 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9' });
    const report = await restarted.agenda.tick();
    expect(restarted.calls).toEqual([]);
    expect(restarted.reconciles.map((r) => r.idempotencyKey)).toEqual([`${job.agendaId}#1`]);
    expect(report.reconciled).toEqual([expect.objectContaining({ agendaId: job.agendaId, status: 'executed' })]);
    expect(restarted.lines().at(-1)).toMatchObject({ type: 'agenda.executed', reconciled: true, planId: 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9' });
    expect(restarted.agenda.get(job.agendaId).status).toBe('executed');
    await restarted.agenda.tick();
    expect(restarted.calls).toEqual([]);
    expect(restarted.reconciles).toHaveLength(1);
  });

  it('should fail, never rerun, an interrupted firing the reconciler cannot account for', async () => {
    const h = harness();
    const a = h.agenda.create(item(at(T0), plan('a')));
    const b = h.agenda.create(item(at(T0 + 3 * MINUTE), { type: 'resume', plan_id: 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9' }));
    h.now.ms = T0 + 2 * MINUTE;
    h.executor.fn = () => new Promise(() => {});
    void h.agenda.tick();
    await Promise.resolve();
    h.now.ms = T0 + 3 * MINUTE;
    const restarted = h.reopen();
    restarted.reconciler.fn = async () => {
      throw new Error('plans folder unreadable');
    };
    const report = await restarted.agenda.tick();
    expect(report.reconciled).toEqual([
      expect.objectContaining({ agendaId: a.agendaId, status: 'failed', detail: 'reconcile failed: plans folder unreadable; not run again' }),
    ]);
    // b never started before the crash: it runs now, once.
    expect(report.fired.map((f) => f.agendaId)).toEqual([b.agendaId]);
    expect(restarted.calls.map((c) => c.agendaId)).toEqual([b.agendaId]);
  });

  it('should reconcile an in-process firing torn by a crash from the effect it left in the log', async () => {
    const h = harness();
    const emitter = h.agenda.create(item(at(T0), emitTo('done')));
    await h.agenda.tick();
    // Keep started and bus.emitted, lose agenda.executed, as a write torn after its second line would.
    const lines = h.lines();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(eventsPath(h.dir), lines.slice(0, 3).map((l) => JSON.stringify(l)).join('\n') + '\n{"type":"agenda.exec');
    const restarted = h.reopen();
    expect(restarted.agenda.problems).toHaveLength(1);
    const report = await restarted.agenda.tick();
    expect(report.reconciled).toEqual([expect.objectContaining({ agendaId: emitter.agendaId, status: 'executed' })]);
    expect(restarted.agenda.events()).toHaveLength(1);
    // Without the effect line, the firing is failed, not emitted a second time.
    writeFileSync(eventsPath(h.dir), lines.slice(0, 2).map((l) => JSON.stringify(l)).join('\n') + '\n');
    const again = h.reopen();
    const second = await again.agenda.tick();
    expect(second.reconciled).toEqual([
      expect.objectContaining({ status: 'failed', detail: 'interrupted by a restart before its effect was recorded; not run again' }),
    ]);
    expect(again.agenda.events()).toEqual([]);
  });

  it('should not run a slow action twice when ticks overlap', async () => {
    const h = harness();
    h.agenda.create(item(at(T0), plan('slow')));
    let finish!: () => void;
    h.executor.fn = () => new Promise((resolve) => (finish = () => resolve({ result: 'done at last' })));
    h.agenda.start(5);
    expect(h.timers).toEqual([expect.objectContaining({ ms: 5000 })]);
    await Promise.resolve();
    for (let i = 0; i < 5; i++) h.timers[0]!.fn(); // the timer fires while the action still runs
    await new Promise((resolve) => setTimeout(resolve, 0)); // the ticks the timer started have done their part
    // A tick runs (the firing does not hold it up), but the item is running: it does not fire it again.
    const during = await Promise.race([h.agenda.tick(), new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 1_000))]);
    expect(during).toEqual({ reconciled: [], expired: [], fired: [], notices: [] });
    expect(h.agenda.get(h.calls[0]!.agendaId).status).toBe('running');
    expect(h.calls).toHaveLength(1);
    finish();
    await h.agenda.stop();
    expect(h.timers[0]!.stopped).toBe(true);
    expect(h.lines().map((l) => l.type)).toEqual(['agenda.created', 'agenda.started', 'agenda.executed']);
    expect((await h.agenda.tick()).fired).toEqual([]);
    expect(h.calls).toHaveLength(1);
  });

  it("should fire the other due items on time while one firing's plan is slow to reach its gate", async () => {
    const h = harness({ limits: { min_interval_seconds: 0 } });
    const slow = h.agenda.create(item(at(T0), plan('slow planner')));
    const command = h.agenda.create(item(at(T0), { type: 'command', command: '/standup', sessionId: 'ses_a' }));
    const later = h.agenda.create(item(at(T0 + MINUTE), { type: 'resume', plan_id: 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9' }));
    const gate = deferred<{ result: string; planId: string }>();
    h.executor.fn = async (r) => (r.action.type === 'plan' ? gate.promise : { result: `ran ${r.action.type}` });
    const settled = new Set<string>();
    const first = h.agenda.tick().then((report) => {
      settled.add('first tick');
      return report;
    });
    // Both due at T0: the command runs and records its outcome while the plan's firing still waits for its gate.
    await vi.waitFor(() => expect(h.agenda.get(command.agendaId).status).toBe('executed'));
    expect(h.calls.map((c) => c.agendaId)).toEqual([slow.agendaId, command.agendaId]);
    expect(h.agenda.get(slow.agendaId).status).toBe('running');
    // A minute later, the next tick fires what came due, the plan's firing still in flight.
    h.now.ms = T0 + MINUTE;
    const next = await h.agenda.tick();
    expect(next.fired).toEqual([expect.objectContaining({ agendaId: later.agendaId, status: 'executed', late: false })]);
    expect(h.agenda.get(slow.agendaId).status).toBe('running');
    expect(settled.has('first tick')).toBe(false);
    let stopped = false;
    const stopping = h.agenda.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stopped).toBe(false); // stop waits for the firing in flight: its outcome is written under the lease
    gate.resolve({ result: 'plan_01 proposed: waits for approval', planId: 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9' });
    const report = await first;
    await stopping;
    expect(report.fired.map((f) => [f.agendaId, f.status])).toEqual([
      [slow.agendaId, 'executed'],
      [command.agendaId, 'executed'],
    ]);
    expect(h.agenda.get(slow.agendaId)).toMatchObject({ status: 'executed', lastResult: 'plan_01 proposed: waits for approval' });
    const order = h.lines().filter((l) => l.type !== 'agenda.created').map((l) => `${l.type} ${[slow, command, later].findIndex((i) => i.agendaId === l.agendaId)}`);
    expect(order).toEqual(['agenda.started 0', 'agenda.started 1', 'agenda.executed 1', 'agenda.started 2', 'agenda.executed 2', 'agenda.executed 0']);
    expect(h.calls).toHaveLength(3);
  });

  it('should stop draining when paused mid-tick, and say so', async () => {
    const h = harness();
    h.agenda.create(item(at(T0), plan('first')));
    const second = h.agenda.create(item(at(T0 + MINUTE), plan('second')));
    h.now.ms = T0 + 2 * MINUTE;
    h.executor.fn = async () => {
      h.agenda.pause(); // a human pauses while the first action runs
      return { result: 'ok' };
    };
    const report = await h.agenda.tick();
    expect(report.fired).toHaveLength(1);
    expect(report.notices).toEqual(['paused during a tick: 1 due item(s) wait for /agenda-resume']);
    expect(h.agenda.get(second.agendaId).status).toBe('pending');
  });

  it('should log and toast a tick that fails, not swallow it', async () => {
    const h = harness();
    h.agenda.create(item(at(T0), emitTo('x')));
    rmSync(eventsPath(h.dir));
    mkdirSync(eventsPath(h.dir)); // the log cannot be appended to any more
    h.agenda.start();
    await h.agenda.stop();
    expect(h.logs.find((l) => l.startsWith('error'))).toMatch(/^error agenda tick failed: EISDIR/);
    expect(h.toasts.at(-1)).toMatchObject({ variant: 'error', title: 'Agenda' });
  });

  it('should run on an unref timer by default, so it never keeps the process alive', async () => {
    const spy = vi.spyOn(globalThis, 'setInterval');
    const agenda = Agenda.open({ directory: projectDir(), ports: { execute: async () => ({ result: 'x' }) } });
    agenda.start(3600);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(spy.mock.calls[0]![1]).toBe(3_600_000);
    const timer = spy.mock.results[0]!.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    await agenda.stop();
    spy.mockRestore();
  });
});
