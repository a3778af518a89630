import { assign, setup } from 'xstate';

/**
 * One agenda item (docs/design.md, "Items, triggers and actions"): pending → running → executed |
 * failed, pending → cancelled | expired. A recurring (cron) item goes back to pending after each
 * firing, so only a one-shot item ends in executed or failed. The events are the item's own log
 * lines, so the item's state is the fold of its lines through this machine; a line it does not
 * accept (executed twice, a firing out of order) is refused by a guard and reported by the fold.
 * Pure: no actors, no delays; the scheduler outside does the work and writes the lines.
 */

export const AGENDA_ITEM_MACHINE_VERSION = 1;

export interface AgendaItemInput {
  agendaId: string;
  /** A cron item: each firing returns it to pending. */
  recurring: boolean;
}

export interface AgendaItemContext {
  agendaId: string;
  recurring: boolean;
  /** The last firing started (1-based); 0 before the first. */
  firing: number;
  /** When that firing was due (time and cron triggers). */
  dueAt: string | null;
  startedAt: string | null;
  late: boolean;
  triggeredByEvent: string | null;
  executions: number;
  failures: number;
  lastResult: string | null;
  lastError: string | null;
  /** The plan the last `plan` or `resume` firing created or continued. */
  planId: string | null;
  /** Why it was cancelled. */
  cancelReason: string | null;
}

/**
 * The item's log lines, as far as the chart reads them. The agenda's stored lines (zod schemas in
 * agenda/events.ts, with more fields) are checked there to fit these, so the chart depends on
 * nothing of the agenda's storage.
 */
export interface ItemStartedEvent {
  type: 'agenda.started';
  at: string;
  firing: number;
  dueAt?: string;
  late?: boolean;
  triggeredByEvent?: string;
}
export interface ItemExecutedEvent {
  type: 'agenda.executed';
  firing: number;
  result: string;
  planId?: string;
}
export interface ItemFailedEvent {
  type: 'agenda.failed';
  firing: number;
  error: string;
}
export interface ItemCancelledEvent {
  type: 'agenda.cancelled';
  reason: string;
}
export interface ItemExpiredEvent {
  type: 'agenda.expired';
}
export type AgendaItemEvent = ItemStartedEvent | ItemExecutedEvent | ItemFailedEvent | ItemCancelledEvent | ItemExpiredEvent;

const firingOf = ({ event }: { event: { firing: number } }) => ({ firing: event.firing });

export const agendaItemMachine = setup({
  types: {
    context: {} as AgendaItemContext,
    input: {} as AgendaItemInput,
    events: {} as AgendaItemEvent,
  },
  guards: {
    /** Firings are numbered 1, 2, 3…: a start must be the next one, never a repeat. */
    isNextFiring: ({ context }, params: { firing: number }) => params.firing === context.firing + 1,
    /** An outcome must answer the firing in flight. */
    isCurrentFiring: ({ context }, params: { firing: number }) => params.firing === context.firing,
    isRecurring: ({ context }) => context.recurring,
  },
  actions: {
    recordStart: assign((_, line: ItemStartedEvent) => ({
      firing: line.firing,
      dueAt: line.dueAt ?? null,
      startedAt: line.at,
      late: line.late ?? false,
      triggeredByEvent: line.triggeredByEvent ?? null,
    })),
    recordExecuted: assign(({ context }, line: ItemExecutedEvent) => ({
      executions: context.executions + 1,
      lastResult: line.result,
      planId: line.planId ?? context.planId,
    })),
    recordFailed: assign(({ context }, line: ItemFailedEvent) => ({
      failures: context.failures + 1,
      lastError: line.error,
    })),
    recordCancel: assign((_, line: ItemCancelledEvent) => ({ cancelReason: line.reason })),
  },
}).createMachine({
  id: 'agendaItem',
  context: ({ input }) => ({
    agendaId: input.agendaId,
    recurring: input.recurring,
    firing: 0,
    dueAt: null,
    startedAt: null,
    late: false,
    triggeredByEvent: null,
    executions: 0,
    failures: 0,
    lastResult: null,
    lastError: null,
    planId: null,
    cancelReason: null,
  }),
  initial: 'pending',
  states: {
    pending: {
      on: {
        'agenda.started': {
          guard: { type: 'isNextFiring', params: firingOf },
          target: 'running',
          actions: { type: 'recordStart', params: ({ event }) => event },
        },
        'agenda.cancelled': { target: 'cancelled', actions: { type: 'recordCancel', params: ({ event }) => event } },
        'agenda.expired': { target: 'expired' },
      },
    },
    running: {
      // No cancel here: the firing in flight finishes and records its outcome first.
      on: {
        'agenda.executed': {
          guard: { type: 'isCurrentFiring', params: firingOf },
          target: 'firing_executed',
          actions: { type: 'recordExecuted', params: ({ event }) => event },
        },
        'agenda.failed': {
          guard: { type: 'isCurrentFiring', params: firingOf },
          target: 'firing_failed',
          actions: { type: 'recordFailed', params: ({ event }) => event },
        },
      },
    },
    // Transient: a recurring item waits for its next firing, a one-shot item is done.
    firing_executed: { always: [{ guard: 'isRecurring', target: 'pending' }, { target: 'executed' }] },
    firing_failed: { always: [{ guard: 'isRecurring', target: 'pending' }, { target: 'failed' }] },
    executed: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
    expired: { type: 'final' },
  },
});

export type AgendaItemStatus = 'pending' | 'running' | 'executed' | 'failed' | 'cancelled' | 'expired';
