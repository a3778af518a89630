import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgendaStateError } from '../../src/agenda/errors.js';
import { configPath } from '../../src/agenda/pause.js';
import { AgendaStore, eventsPath } from '../../src/agenda/store.js';
import { at, emitTo, harness, item, MINUTE, projectDir, T0 } from './harness.js';

const created = (agendaId: string) => ({
  type: 'agenda.created',
  at: '2030-01-07T08:00:00.000Z',
  agendaId,
  trigger: { type: 'time', executeAt: '2030-01-07T09:00:00.000Z' },
  action: { type: 'emit', kind: 'x', message: '' },
  reason: 'r',
  createdBy: 'ses_1',
  depth: 0,
});
const A = 'agn_01JDX4Z6Q5H2M3N4P5R6S7T8V1';
const B = 'agn_01JDX4Z6Q5H2M3N4P5R6S7T8V2';
const line = (o: unknown) => `${JSON.stringify(o)}\n`;

describe('agenda event store', () => {
  it('should append one JSON line per event to .opencode/agenda/events.jsonl and read it back at the next open', () => {
    const h = harness();
    const view = h.agenda.create(item(at(T0 + 10 * MINUTE), emitTo('x')));
    h.agenda.emit('tests.passed', 'all green', { sessionId: 'ses_a' });
    const lines = h.lines();
    expect(lines.map((l) => l.type)).toEqual(['agenda.created', 'bus.emitted']);
    expect(lines[0]).toMatchObject({ agendaId: view.agendaId, trigger: at(T0 + 10 * MINUTE), depth: 0, at: new Date(T0).toISOString() });
    const again = h.reopen();
    expect(again.agenda.list().map((i) => i.agendaId)).toEqual([view.agendaId]);
    expect(again.agenda.events().map((e) => e.event)).toEqual(['tests.passed']);
    expect(again.agenda.problems).toEqual([]);
  });

  it('should read the file once: later reads come from memory, not the disk', () => {
    const dir = projectDir();
    mkdirSync(dirname(eventsPath(dir)), { recursive: true });
    writeFileSync(eventsPath(dir), line(created(A)));
    const h = harness({ dir });
    appendFileSync(eventsPath(dir), line(created(B))); // another writer after the open
    expect(h.agenda.list().map((i) => i.agendaId)).toEqual([A]);
    expect(() => h.agenda.get(B)).toThrow(/does not exist/);
    expect(h.reopen().agenda.list().map((i) => i.agendaId)).toEqual([A, B]);
  });

  it('should report and skip a corrupt line (not JSON, not the schema, refused by the item machine) and load the rest', () => {
    const dir = projectDir();
    mkdirSync(dirname(eventsPath(dir)), { recursive: true });
    const startedA = { type: 'agenda.started', at: '2030-01-07T09:00:00.000Z', agendaId: A, firing: 1, depth: 0 };
    const executedA = { type: 'agenda.executed', at: '2030-01-07T09:00:01.000Z', agendaId: A, firing: 1, result: 'ok' };
    writeFileSync(
      eventsPath(dir),
      [
        line(created(A)),
        '{"type":"agenda.created", oops\n',
        line({ type: 'agenda.expired', agendaId: B }),
        line(startedA),
        line(executedA),
        line(executedA), // executed twice
        line({ type: 'agenda.cancelled', at: '2030-01-07T09:00:02.000Z', agendaId: B, reason: 'r' }), // never created
        line(created(B)),
      ].join(''),
    );
    const h = harness({ dir });
    expect(h.agenda.problems.map((p) => p.line)).toEqual([2, 3, 6, 7]);
    expect(h.agenda.problems[0]!.reason).toMatch(/^not JSON/);
    expect(h.agenda.problems[1]!.reason).toMatch(/^not an agenda event .*at: /);
    expect(h.agenda.problems[2]!.reason).toBe('agenda.executed is not accepted for agn_01JDX4Z6Q5H2M3N4P5R6S7T8V1 in state executed (firing 1; last started 1)');
    expect(h.agenda.problems[3]!.reason).toMatch(/agenda.cancelled for agn_01JDX4Z6Q5H2M3N4P5R6S7T8V2, which was never created/);
    expect(h.agenda.problems[1]!.text.length).toBeLessThanOrEqual(100);
    expect(h.agenda.get(A).status).toBe('executed');
    expect(h.agenda.get(B).status).toBe('pending');
    expect(h.logs.filter((l) => l.includes('skipped'))).toHaveLength(4);
  });

  it('should start a new line after a torn last line (a crash mid-append), so the next event is not lost', () => {
    const dir = projectDir();
    mkdirSync(dirname(eventsPath(dir)), { recursive: true });
    writeFileSync(eventsPath(dir), line(created(A)) + '{"type":"agenda.canc');
    const h = harness({ dir });
    expect(h.agenda.problems).toHaveLength(1);
    h.agenda.cancel(A, 'changed my mind');
    const again = h.reopen();
    expect(again.agenda.get(A).status).toBe('cancelled');
    expect(again.agenda.problems.map((p) => p.line)).toEqual([2]);
  });

  it('should refuse, before writing, a line its item machine does not accept', () => {
    const dir = projectDir();
    const store = AgendaStore.open(dir);
    store.append(created(A) as never);
    store.append({ type: 'agenda.cancelled', at: '2030-01-07T09:00:00.000Z', agendaId: A, reason: 'r' });
    const before = readFileSync(eventsPath(dir), 'utf8');
    expect(() => store.append({ type: 'agenda.expired', at: '2030-01-07T09:00:00.000Z', agendaId: A })).toThrow(AgendaStateError);
    expect(() => store.append(created(B) as never, created(B) as never)).toThrow(/created twice/);
    expect(readFileSync(eventsPath(dir), 'utf8')).toBe(before);
    expect(store.item(B)).toBeUndefined();
  });

  it('should not create the agenda folder until something is written', () => {
    const h = harness();
    h.agenda.list();
    expect(existsSync(eventsPath(h.dir))).toBe(false);
  });
});

describe('agenda pause', () => {
  it('should persist the pause in .opencode/agenda/config.json across a new instance', async () => {
    const h = harness();
    h.agenda.create(item(at(T0), emitTo('x')));
    h.agenda.pause();
    expect(JSON.parse(readFileSync(configPath(h.dir), 'utf8'))).toEqual({ paused: true });
    const restarted = h.reopen();
    expect(restarted.agenda.paused).toBe(true);
    expect((await restarted.agenda.tick()).skipped).toBe('paused');
    restarted.agenda.resume();
    expect(h.reopen().agenda.paused).toBe(false);
    expect((await restarted.agenda.tick()).fired).toHaveLength(1);
  });

  it('should stay paused, and say why, when config.json cannot be read', () => {
    const dir = projectDir();
    mkdirSync(dirname(configPath(dir)), { recursive: true });
    writeFileSync(configPath(dir), '{"paused": "no"}');
    const h = harness({ dir });
    expect(h.agenda.paused).toBe(true);
    expect(h.agenda.configProblem).toMatch(/expected \{"paused": true\|false\} \(no boolean "paused"\)/);
    appendFileSync(configPath(dir), 'garbage');
    expect(harness({ dir }).agenda.configProblem).toMatch(/not JSON/);
  });
});
