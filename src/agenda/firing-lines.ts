import type { DueFiring } from './due.js';
import type { ExecutedLine, FailedLine, StartedLine } from './events.js';
import { keyOf, type ExecutionRequest, type ExecutionResult, type ExternalAction } from './ports.js';
import type { ItemRecord } from './store.js';

/** The lines one firing writes, and what the executor and the reconciler are told about it. */

const optional = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as { [P in K]: V }));

export const startedLine = (due: DueFiring, at: string): StartedLine => ({
  type: 'agenda.started',
  at,
  agendaId: due.agendaId,
  firing: due.firing,
  ...optional('dueAt', due.dueAt),
  ...(due.late ? { late: true } : {}),
  ...optional('missed', due.missed),
  ...optional('triggeredByEvent', due.triggeredByEvent),
  depth: due.depth,
});

export const executedLine = (due: DueFiring, r: ExecutionResult, at: string, reconciled = false): ExecutedLine => ({
  type: 'agenda.executed',
  at,
  agendaId: due.agendaId,
  firing: due.firing,
  result: r.result,
  ...optional('triggeredByEvent', due.triggeredByEvent),
  ...optional('actualSessionId', r.actualSessionId),
  ...optional('planId', r.planId),
  ...(reconciled ? { reconciled } : {}),
});

export const failedLine = (due: DueFiring, error: string, at: string, reconciled = false): FailedLine => ({
  type: 'agenda.failed',
  at,
  agendaId: due.agendaId,
  firing: due.firing,
  error,
  ...optional('triggeredByEvent', due.triggeredByEvent),
  ...(reconciled ? { reconciled } : {}),
});

export const outcomeDetail = (line: ExecutedLine | FailedLine) => (line.type === 'agenda.executed' ? line.result : line.error);

export function executionRequest(record: ItemRecord, due: DueFiring, action: ExternalAction): ExecutionRequest {
  const { created } = record;
  return {
    agendaId: created.agendaId,
    firing: due.firing,
    idempotencyKey: keyOf(created.agendaId, due.firing),
    action,
    reason: created.reason,
    createdBy: created.createdBy,
    ...optional('sessionId', created.sessionId),
    late: due.late,
    ...optional('dueAt', due.dueAt),
    ...optional('triggeredByEvent', due.triggeredByEvent),
  };
}
