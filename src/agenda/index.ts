// The agenda core (docs/design.md, "Agenda"): re-exports only.
export { Agenda, DEFAULT_LATE_AFTER_SECONDS, DEFAULT_POLL_SECONDS, type AgendaOptions, type ItemFilter } from './agenda.js';
export { AgendaBlockedError, AgendaInputError, AgendaStateError } from './errors.js';
export type { StoreEvent } from './events.js';
export { isAgendaId, parseAgendaId } from './ids.js';
export { DEFAULT_AGENDA_LIMITS, type AgendaLimits } from './limits.js';
export type { AgendaPorts, ExecutionRequest, ExecutionResult, ReconcileResult, Toast } from './ports.js';
export type { FiringOutcome, TickReport } from './scheduler.js';
export type { Action, Trigger } from './schema.js';
export type { LoadProblem } from './store.js';
export type { AgendaItemView, BusEventView } from './view.js';
