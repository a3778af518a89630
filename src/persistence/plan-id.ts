import { ulid } from 'ulid';
import { InvalidPlanIdError } from './errors.js';

/** plan_ + a ULID: time-sortable, filename-safe, never user-chosen. */
export const PLAN_ID = /^plan_[0-9A-HJKMNP-TV-Z]{26}$/;

export const newPlanId = (now: number = Date.now()) => `plan_${ulid(now)}`;

export const isPlanId = (input: unknown): input is string => typeof input === 'string' && PLAN_ID.test(input);

/** Every plan_id that comes in from a tool, command or CLI passes here before touching the disk. */
export function parsePlanId(input: unknown): string {
  if (!isPlanId(input)) throw new InvalidPlanIdError(input);
  return input;
}
