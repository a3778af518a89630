import { Cron } from 'croner';
import { AgendaInputError, quote } from './errors.js';
import type { CronTrigger } from './schema.js';
import { errorMessage } from '../errors.js';

/**
 * Cron triggers, read by croner (5 fields, 6 with seconds, 7 with a year; an IANA time zone, default UTC).
 * Only the pure date arithmetic is used: no croner job or timer is ever started; the tick
 * decides when a firing is due.
 */

const cache = new Map<string, Cron>();

/** The schedule of a trigger; throws AgendaInputError when croner refuses the expression or the zone. */
export function cronOf(trigger: CronTrigger): Cron {
  const timezone = trigger.timezone ?? 'UTC';
  const key = `${timezone}\u0000${trigger.expression}`;
  const known = cache.get(key);
  if (known) return known;
  if (!isTimeZone(timezone)) {
    throw new AgendaInputError(`Invalid cron timezone ${quote(timezone)}: expected an IANA time zone such as "Europe/Paris" or "UTC".`);
  }
  let cron: Cron;
  try {
    cron = new Cron(trigger.expression, { timezone, paused: true });
  } catch (error) {
    throw new AgendaInputError(
      `Invalid cron expression ${quote(trigger.expression)}: expected 5 fields (minute hour day month weekday) ` +
        `or 6 with seconds first (7 with a year last), like "0 9 * * 1-5" (${errorMessage(error).slice(0, 200)}).`,
    );
  }
  cache.set(key, cron);
  return cron;
}

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false; // RangeError: the one way Intl says "unknown zone"
  }
};

/** The first firing strictly after `afterMs`, or null when the expression never fires again. */
export function nextFiring(trigger: CronTrigger, afterMs: number): number | null {
  return cronOf(trigger).nextRun(new Date(afterMs))?.getTime() ?? null;
}

/** The next `count` firings after `afterMs`. */
export const nextFirings = (trigger: CronTrigger, afterMs: number, count: number): number[] =>
  cronOf(trigger).nextRuns(count, new Date(afterMs)).map((d) => d.getTime());

/**
 * Is a firing due at `nowMs`, for an item whose last firing was due at `anchorMs` (or that was
 * created then)? Slots missed while no server ran are one firing, not one per slot: it takes the
 * latest slot (`dueAt`, from which the next firing is counted), says when the first slot was
 * (`firstDueAt`, which tells how late it is) and how many slots this one firing stands for.
 */
export function dueCronSlot(trigger: CronTrigger, anchorMs: number, nowMs: number): { dueAt: number; firstDueAt: number; slots: number } | null {
  const first = nextFiring(trigger, anchorMs);
  if (first === null || first > nowMs) return null;
  // previousRuns counts a run earlier in the same second as the reference: +1 ms makes `nowMs` itself count.
  const latest = cronOf(trigger).previousRuns(1, new Date(nowMs + 1))[0]?.getTime() ?? first;
  const dueAt = Math.max(latest, first);
  return { dueAt, firstDueAt: first, slots: dueAt === first ? 1 : countBetween(trigger, anchorMs, dueAt) };
}

/** Slots after `fromMs` up to and including `toMs`, counted up to `cap` (enough to say "many"). */
export function countBetween(trigger: CronTrigger, fromMs: number, toMs: number, cap = 1500): number {
  let count = 0;
  for (let t = nextFiring(trigger, fromMs); t !== null && t <= toMs && count < cap; t = nextFiring(trigger, t)) count++;
  return count;
}
