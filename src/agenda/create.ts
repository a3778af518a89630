import { z } from 'zod';
import { describeIssues } from '../persistence/plan-file.js';
import { nextFiring } from './cron.js';
import { AgendaInputError, quote } from './errors.js';
import type { CreatedLine } from './events.js';
import type { AgendaLimits } from './limits.js';
import { checkCreate } from './rails.js';
import { actionSchema, triggerSchema, type Action, type Trigger } from './schema.js';
import type { AgendaReader } from './store.js';

/**
 * A new item, from a tool, command, CLI or a `schedule` action: parse the trigger and the action,
 * check what the schema cannot (a cron expression that fires, times not in the past), pass every
 * rail, and return the `agenda.created` line to append.
 */

export interface NewItem {
  trigger: unknown;
  action: unknown;
  reason: string;
  /** A session id, "cli", or "agenda:<agendaId>" for a schedule action. */
  createdBy: string;
  sessionId?: string;
  /** 0 unless an item's schedule action creates it. */
  depth?: number;
  /** The firing of the schedule action that creates it. */
  cause?: { agendaId: string; firing: number };
}

/** A time a minute in the past still fires at the next tick (a clock skew, a slow model); older is a mistake. */
const PAST_TOLERANCE_MS = 60_000;

export function parseWith<T>(schema: z.ZodType<T>, what: string, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new AgendaInputError(`Invalid ${what} ${quote(input)}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

export const parseTrigger = (input: unknown): Trigger => parseWith(triggerSchema, 'trigger', input);
export const parseAction = (input: unknown): Action => parseWith(actionSchema, 'action', input);

/** What a schema cannot see: cron expressions and zones croner accepts, and times still ahead. */
export function checkTrigger(trigger: Trigger, nowMs: number): void {
  if (trigger.type === 'cron') {
    if (nextFiring(trigger, nowMs) === null) {
      throw new AgendaInputError(`Cron expression ${quote(trigger.expression)} never fires after now: expected a recurring schedule.`);
    }
    return;
  }
  const at = trigger.type === 'time' ? trigger.executeAt : trigger.expiresAt;
  if (at !== undefined && Date.parse(at) < nowMs - PAST_TOLERANCE_MS) {
    const field = trigger.type === 'time' ? 'executeAt' : 'expiresAt';
    throw new AgendaInputError(`${field} ${at} is in the past (now is ${new Date(nowMs).toISOString()}): expected a future time.`);
  }
}

/** A schedule action's nested trigger is checked now too, so a cascade does not fail on a typo later. */
function checkNested(action: Action, nowMs: number): void {
  if (action.type !== 'schedule') return;
  checkTrigger(action.trigger, nowMs);
  checkNested(action.action, nowMs);
}

export function prepareCreated(
  reader: AgendaReader,
  item: NewItem,
  limits: AgendaLimits,
  nowMs: number,
  agendaId: string,
): CreatedLine {
  const trigger = parseTrigger(item.trigger);
  const action = parseAction(item.action);
  checkTrigger(trigger, nowMs);
  checkNested(action, nowMs);
  const depth = item.depth ?? 0;
  checkCreate(reader, { trigger, action, sessionId: item.sessionId, depth }, limits, nowMs);
  return {
    type: 'agenda.created',
    at: new Date(nowMs).toISOString(),
    agendaId,
    trigger,
    action,
    reason: item.reason,
    createdBy: item.createdBy,
    ...(item.sessionId !== undefined ? { sessionId: item.sessionId } : {}),
    depth,
    ...(item.cause ? { cause: item.cause } : {}),
  };
}
