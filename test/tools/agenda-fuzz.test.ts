// The agenda tool's operations against random arguments, as a confused model might send them
// (OpenCode passes them unchecked): each call gives a clear, bounded error, a BLOCKED refusal, or a
// valid result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agendaTool } from '../../src/tools/agenda.js';
import { agendaOrca, removeDir, toolContext, untilAgenda, type AgendaOrca } from '../support/agenda-orca.js';

const CALLS = 100;
const HUGE = 'x'.repeat(10_240);

function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let a: AgendaOrca;
beforeAll(async () => {
  a = agendaOrca();
  await untilAgenda(a.orca);
});
afterAll(async () => {
  await a.dispose();
  removeDir(a.dir);
});

const later = () => new Date(Date.now() + 3_600_000 + Math.floor(Math.random() * 1e9)).toISOString();
const known = () => a.orca.agenda.list({ status: 'all' }).map((i) => i.agendaId);

describe('every op of the agenda tool against random arguments', () => {
  const ops: Record<string, string[]> = {
    create: ['trigger', 'action', 'reason'],
    list: [],
    cancel: ['agendaId', 'reason'],
    emit: ['kind', 'message'],
    events: ['kind', 'limit'],
    pause: [],
  };

  it.each(Object.keys(ops))(`should answer ${CALLS} random calls of op %s clearly`, async (name) => {
    const next = random(name.length * 104729);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const junk = (): unknown => pick([null, true, 0, -1, 2.5, 1e21, '', ' ', HUGE, '../etc', 'agn_../x', [], {}, { type: HUGE }, ['a', 1]]);
    const plausible: Record<string, () => unknown> = {
      trigger: () =>
        pick([
          { type: 'time', executeAt: later() },
          { type: 'event', eventKind: pick(['tests.failed', 'plan.completed:plan_x', ['a', 'b']]) },
          { type: 'cron', expression: pick(['0 2 * * *', '* * * * * *', 'not cron']) },
          { type: 'time', executeAt: HUGE },
          { type: 'event' },
        ]),
      action: () =>
        pick([
          { type: 'emit', kind: 'x', message: 'y' },
          { type: 'plan', message: 'nightly checks' },
          { type: 'command', command: pick(['/review', '/orca-approve', '/agenda-resume', HUGE]) },
          { type: 'schedule', trigger: { type: 'event', eventKind: 'z' }, action: { type: 'emit', kind: 'q', message: '' }, reason: 'r' },
          { type: 'cancel', scheduleId: known()[0] ?? 'agn_x', reason: 'r' },
        ]),
      reason: () => pick(['nightly', HUGE.slice(0, 2000)]),
      agendaId: () => (known().length > 0 ? pick(known()) : 'agn_01JDX4Z6Q5H2M3N4P5R6S7T8V9'),
      kind: () => pick(['tests.failed', 'deploy.done:prod', 'has space', HUGE]),
      message: () => pick(['hi', '']),
      limit: () => pick([1, 10, 0, 500]),
    };
    const names = ops[name]!;
    const kinds = new Map<string, number>();
    for (let i = 0; i < CALLS; i++) {
      // Mostly this op; now and then a misspelt or missing one, or another op's argument.
      const args: Record<string, unknown> = next() < 0.9 ? { op: name } : next() < 0.5 ? {} : { op: pick(['Create', 'resume', '', 3, null]) };
      for (const key of [...names, 'agendaID', 'foo', 'status']) {
        if (next() >= (names.includes(key) ? 0.8 : 0.05)) continue;
        args[key] = plausible[key] && next() < 0.7 ? plausible[key]!() : junk();
      }
      const input = i % 25 === 24 ? pick([null, [], 'trigger', 7]) : args;
      const out = await agendaTool(a.orca).execute(input as never, toolContext(a.dir, `ses_fuzz${i % 3}`) as never);
      const text = typeof out === 'string' ? out : (out as { output: string }).output;
      expect(text.length, text.slice(0, 300)).toBeLessThan(20_000);
      expect(text).not.toContain('x'.repeat(200));
      if (text.startsWith('BLOCKED [')) {
        expect(text).toMatch(/^BLOCKED \[[a-z_]+\]: \S/);
        kinds.set('blocked', (kinds.get('blocked') ?? 0) + 1);
        continue;
      }
      const reply = JSON.parse(text) as Record<string, unknown>;
      const kind = reply.status === 'failure' ? String(reply.error_type) : 'ok';
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      if (kind === 'ok') continue;
      const error = String(reply.error);
      // Bounded, and long enough to name every shape a trigger and an action may take (a model that guessed wrong learns them).
      expect(error.length, error.slice(0, 300)).toBeLessThan(1_500);
      expect(['InvalidToolArgumentsError', 'AgendaInputError', 'AgendaStateError'], `${kind}: ${error}`).toContain(kind);
    }
    expect(kinds.get('ok') ?? 0, JSON.stringify([...kinds])).toBeGreaterThan(0);
    expect(kinds.get('InvalidToolArgumentsError') ?? 0).toBeGreaterThan(3);
  });
});
