import { ulid } from 'ulid';
import { AgendaInputError, quote } from './errors.js';

/** agn_ + a ULID: time-sortable, never user-chosen (the same shape as plan ids). */
const AGENDA_ID = /^agn_[0-9A-HJKMNP-TV-Z]{26}$/;
/** evt_ + a ULID: one bus event. */
const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;

export const newAgendaId = (now: number = Date.now()) => `agn_${ulid(now)}`;
export const newEventId = (now: number = Date.now()) => `evt_${ulid(now)}`;

export const isAgendaId = (input: unknown): input is string => typeof input === 'string' && AGENDA_ID.test(input);
export const isEventId = (input: unknown): input is string => typeof input === 'string' && EVENT_ID.test(input);

/** Every agendaId that comes in from a tool, command or CLI passes here. */
export function parseAgendaId(input: unknown): string {
  if (!isAgendaId(input)) {
    throw new AgendaInputError(
      `Invalid agendaId ${quote(input)}: expected "agn_" followed by 26 ULID characters, as /agenda, orca agenda or the agenda tool's list show it.`,
    );
  }
  return input;
}
