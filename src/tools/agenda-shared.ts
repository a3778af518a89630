import type { ToolContext } from '@opencode-ai/plugin';
import type { z } from 'zod';
import { AgendaBlockedError } from '../agenda/errors.js';
import type { RequestOutcome } from '../agenda/runtime.js';
import type { AgendaItemView } from '../agenda/view.js';
import type { Orca } from '../composition-root.js';
import { findRootSession } from '../hitl/native-question/root-session.js';
import { toolError } from './tool-error.js';

/** What the `agenda` tool's operations share: the session an item belongs to, and how outcomes read for the model. */

export type AgendaOrca = Pick<Orca, 'agenda' | 'sessions'>;

/** One operation of the `agenda` tool (`op`): its arguments besides `op`, each in words for a bad call, and what it does. */
export interface AgendaOp<Args extends z.ZodRawShape = z.ZodRawShape> {
  args: Args;
  expected: { [K in keyof Args]: string };
  run(args: z.infer<z.ZodObject<Args>>, ctx: ToolContext): Promise<string>;
}

/** Types an operation against its own arguments. */
export const agendaOp = <Args extends z.ZodRawShape>(op: AgendaOp<Args>): AgendaOp<Args> => op;

/**
 * The person's session the caller works for (the root of its tree): items belong to it, so rails
 * count per conversation and /agenda, reminders and compaction find them there. The caller's own
 * session when the tree cannot be read.
 */
export async function ownerSession(orca: Pick<Orca, 'sessions'>, ctx: Pick<ToolContext, 'sessionID'>): Promise<string> {
  try {
    return await findRootSession(async (id) => (await orca.sessions.get(id))?.parentID, ctx.sessionID);
  } catch {
    return ctx.sessionID;
  }
}

/** A refusal by a rail reads exactly `BLOCKED [rule]: why`; anything else is the usual failure JSON. */
export function agendaToolError(error: unknown): string {
  return error instanceof AgendaBlockedError ? error.message : toolError(error);
}

/** An outcome that only queued (the process holding the agenda did not answer in time). */
export const queuedNote = (outcome: Extract<RequestOutcome, { status: 'queued' }>) =>
  JSON.stringify({
    status: 'queued',
    request: outcome.id,
    note: 'Another OpenCode process runs this project\'s agenda and has not answered yet; the request waits in .opencode/agenda/inbox and applies when it does.',
  });

/** An item as tools return it: what it waits for, what it does, where it stands. */
export function itemJson(item: AgendaItemView) {
  return {
    agendaId: item.agendaId,
    status: item.status,
    trigger: item.trigger,
    action: item.action,
    reason: item.reason,
    nextDueAt: item.nextDueAt,
    firings: item.firings,
    ...(item.late ? { late: true } : {}),
    ...(item.planId ? { planId: item.planId } : {}),
    ...(item.lastResult ? { lastResult: item.lastResult } : {}),
    ...(item.lastError ? { lastError: item.lastError } : {}),
    ...(item.cancelReason ? { cancelReason: item.cancelReason } : {}),
    createdAt: item.createdAt,
  };
}
