import { postRequest } from '../agenda/inbox.js';
import { acquireAgendaLease, AgendaLeaseHeldError, agendaLeaseHeld } from '../agenda/lease.js';
import { applyRequest, type AgendaReply, type AgendaRequest } from '../agenda/requests.js';
import { awaitReply, readAgenda } from '../agenda/runtime.js';
import { AgendaBlockedError, AgendaInputError, AgendaStateError } from '../agenda/errors.js';
import { RefusedError } from '../request-errors.js';
import { errorMessage } from '../errors.js';

/**
 * A change to the agenda from the command line. When an OpenCode server runs the project's agenda
 * (holds its lease), the change goes to it through the inbox and the server's answer is awaited,
 * as `orca decide` does; when none does, the CLI takes the lease for this one change and appends
 * to the log itself (the lease is what keeps two writers apart), and the next server reads it.
 */
export type ChangeOutcome =
  | { where: 'server'; reply: AgendaReply }
  | { where: 'queued'; id: string }
  | { where: 'here'; reply: AgendaReply };

export async function changeAgenda(project: string, request: AgendaRequest, waitMs = 5_000): Promise<ChangeOutcome> {
  try {
    if (!agendaLeaseHeld(project)) return { where: 'here', reply: applyHere(project, request) };
  } catch (error) {
    if (!(error instanceof AgendaLeaseHeldError)) throw refusal(error);
    // a server took the lease meanwhile: hand it the change
  }
  const id = postRequest(project, request);
  try {
    const outcome = await awaitReply(project, id, waitMs);
    return outcome.status === 'done' ? { where: 'server', reply: outcome.reply } : { where: 'queued', id };
  } catch (error) {
    throw refusal(error);
  }
}

function applyHere(project: string, request: AgendaRequest): AgendaReply {
  const release = acquireAgendaLease(project, () => {});
  try {
    return applyRequest(readAgenda(project), request);
  } catch (error) {
    throw refusal(error);
  } finally {
    release();
  }
}

/** The agenda's refusals are the user's to fix (exit 1), not bugs. */
function refusal(error: unknown): unknown {
  const known = error instanceof AgendaBlockedError || error instanceof AgendaInputError || error instanceof AgendaStateError;
  return known ? new RefusedError(errorMessage(error)) : error;
}
