import { z } from 'zod';
import { isPlanId } from '../persistence/plan-id.js';
import { isAgendaId } from './ids.js';

/**
 * Trigger and Action, discriminated on `type` (docs/design.md, "Items, triggers and actions").
 * Strict objects: a misspelt key from a model ("executeat") is refused, not silently dropped.
 */

/** A bus event kind: dotted words (`tests.passed`, `plan.completed`); no `:`, which separates the subject. */
export const KIND = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** What a trigger listens for, and what `emit` sends: `kind` or `kind:subject` (subject: no spaces). */
export const KIND_OR_SUBJECT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(:\S{1,200})?$/;

const isoInstant = (what: string) =>
  z.iso.datetime({
    offset: true,
    error: `expected ${what} as an ISO 8601 date-time with Z or an offset, like 2030-06-01T09:00:00Z`,
  });

const kindOrSubject = z
  .string()
  .regex(KIND_OR_SUBJECT, 'expected an event kind like "tests.passed", or "kind:subject" like "plan.completed:plan_…"');

export const timeTrigger = z.strictObject({ type: z.literal('time'), executeAt: isoInstant('executeAt') });

export const eventTrigger = z.strictObject({
  type: z.literal('event'),
  eventKind: z.union([kindOrSubject, z.array(kindOrSubject).min(1, 'expected at least one event kind').max(10)]),
  /** `any` (default): the first matching event fires the item; `all`: every kind must have been seen since it was created. */
  matchMode: z.enum(['any', 'all']).optional(),
  expiresAt: isoInstant('expiresAt').optional(),
});

export const cronTrigger = z.strictObject({
  type: z.literal('cron'),
  /** Checked by cron.ts (croner) when the item is created. */
  expression: z.string().min(1).max(200),
  /** An IANA time zone such as Europe/Paris (default: UTC). */
  timezone: z.string().min(1).max(100).optional(),
});

export const triggerSchema = z.discriminatedUnion('type', [timeTrigger, eventTrigger, cronTrigger]);

export type TimeTrigger = z.infer<typeof timeTrigger>;
export type EventTrigger = z.infer<typeof eventTrigger>;
export type CronTrigger = z.infer<typeof cronTrigger>;
export type Trigger = z.infer<typeof triggerSchema>;

const text = (max: number) => z.string().max(max);

export const planAction = z.strictObject({ type: z.literal('plan'), message: text(20_000).min(1) });
export const resumeAction = z.strictObject({
  type: z.literal('resume'),
  plan_id: z.string().refine(isPlanId, 'expected a plan_id: "plan_" followed by 26 ULID characters'),
  message: text(20_000).optional(),
});
export const commandAction = z.strictObject({
  type: z.literal('command'),
  command: z.string().regex(/^\/?[A-Za-z0-9][\w.:-]{0,99}$/, 'expected a slash command name like "/review" or "review"'),
  arguments: text(10_000).optional(),
  sessionId: z.string().min(1).max(200),
});
export const emitAction = z.strictObject({ type: z.literal('emit'), kind: kindOrSubject, message: text(10_000) });
export const cancelAction = z.strictObject({
  type: z.literal('cancel'),
  scheduleId: z.string().refine(isAgendaId, 'expected an agendaId: "agn_" followed by 26 ULID characters'),
  reason: text(1_000),
});

export type PlanAction = z.infer<typeof planAction>;
export type ResumeAction = z.infer<typeof resumeAction>;
export type CommandAction = z.infer<typeof commandAction>;
export type EmitAction = z.infer<typeof emitAction>;
export type CancelAction = z.infer<typeof cancelAction>;
/** Recursive: a cascade schedules another item without a model turn. */
export interface ScheduleAction {
  type: 'schedule';
  action: Action;
  trigger: Trigger;
  reason: string;
}
export type Action = PlanAction | ResumeAction | CommandAction | EmitAction | CancelAction | ScheduleAction;

export const scheduleAction = z.strictObject({
  type: z.literal('schedule'),
  get action(): z.ZodType<Action> {
    return actionSchema;
  },
  trigger: triggerSchema,
  reason: text(1_000),
});

export const actionSchema: z.ZodType<Action> = z.discriminatedUnion('type', [
  planAction,
  resumeAction,
  commandAction,
  emitAction,
  cancelAction,
  scheduleAction,
]);

/** Actions that run in the plugin process and cost no model call; the others go to the executor port. */
export const IN_PROCESS_ACTIONS = ['emit', 'cancel', 'schedule'] as const;
export type InProcessAction = EmitAction | CancelAction | ScheduleAction;
export const isInProcess = (action: Action): action is InProcessAction =>
  (IN_PROCESS_ACTIONS as readonly string[]).includes(action.type);
