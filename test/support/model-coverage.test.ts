import { describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { coverTransitions } from './model-coverage.js';

/**
 * The model tests' coverage walk must report a transition no explored edge takes, or "every
 * transition covered" could not fail. A small chart with each kind the charts use: a guarded
 * alternative, an eventless (always) transition and a final state's done event.
 */
const door = setup({
  types: { context: {} as { tries: number }, events: {} as { type: 'open' } | { type: 'close' } | { type: 'lock' } | { type: 'force' } },
  guards: { triedTwice: ({ context }) => context.tries >= 2 },
}).createMachine({
  id: 'door',
  context: { tries: 0 },
  initial: 'closed',
  states: {
    closed: {
      on: {
        open: [{ guard: 'triedTwice', target: 'opened' }, { actions: assign({ tries: ({ context }) => context.tries + 1 }) }],
        lock: 'locked',
      },
    },
    opened: { on: { close: 'closed' } },
    locked: {
      initial: 'holding',
      states: { holding: { on: { force: 'broken' } }, broken: { type: 'final' } },
      onDone: 'checking',
    },
    checking: { always: 'closed' },
  },
});

const every = () => [{ type: 'open' }, { type: 'close' }, { type: 'lock' }, { type: 'force' }];
const walk = (events: (s: any) => Array<{ type: string }>) =>
  coverTransitions({ machine: door, input: undefined, events, serializeState: (s: any) => JSON.stringify([s.value, s.context]) });

describe('coverTransitions', () => {
  it('should cover every transition of a chart when every event is explored', () => {
    const result = walk(every);
    expect(result.missing).toEqual([]);
    expect(result.all.size).toBe(7);
  });

  it('should report the transition that no explored edge takes', () => {
    expect(walk(() => every().filter((e) => e.type !== 'close')).missing).toEqual(['door.opened --close--> door.closed']);
    // Without force the final state is never reached: its done event and the always after it go too.
    expect(walk(() => every().filter((e) => e.type !== 'force')).missing).toEqual([
      'door.locked --xstate.done.state.door.locked--> door.checking',
      'door.locked.holding --force--> door.locked.broken',
      'door.checking --always--> door.closed',
    ]);
    // A guarded alternative is a transition of its own: opened once only, the door never tries twice.
    expect(walk((s: any) => every().filter((e) => e.type !== 'open' || s.context.tries === 0)).missing).toEqual([
      'door.closed --open[triedTwice]--> door.opened',
      'door.opened --close--> door.closed',
    ]);
  });
});
