import type { z } from 'zod';
import { parseModelOutput, validateOutput } from '../protocol/parse-output.js';
import type { InterruptedTurn } from '../machines/types.js';
import type { SessionMessage, SessionsPort } from './sessions.js';
import type { TurnRecordRole } from './turn-port.js';
import { errorMessage } from '../errors.js';

/**
 * A restored plan restarts the side effect it was waiting for with the same input (same session,
 * same idempotency key). Before prompting again, look at what that session already did:
 * - a finished turn with a valid result → `reused`, no new dispatch;
 * - a turn still running (another process, or OpenCode survived us) → wait for it, then decide;
 * - nothing usable → `redispatch` the same attempt in the same session.
 * A session that never received this prompt: `fresh`.
 */
export type Reconciled<T> =
  | { decision: 'fresh' }
  | { decision: 'reused'; value: T; waited: boolean }
  | { decision: 'redispatch'; reason: string; waited: boolean };

/**
 * `prompt` is the start of the turn's first prompt (its header and body): the output protocol
 * section after it may differ between the first run and this one.
 */
export async function reconcileSession<T>(
  sessions: SessionsPort,
  sessionID: string,
  prompt: string,
  schema: z.ZodType<T>,
  signal: AbortSignal,
  pollMs = 500,
): Promise<Reconciled<T>> {
  const start = prompt.trim();
  // Only what happened since this very prompt counts: a session's earlier turns answered other prompts.
  const since = (all: SessionMessage[]) => {
    const at = all.findLastIndex((m) => m.role === 'user' && m.text.trim().startsWith(start));
    return at < 0 ? null : all.slice(at);
  };
  const waitWhileBusy = async () => {
    let waited = false;
    while (await sessions.busy(sessionID)) {
      waited = true;
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, pollMs);
        signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
      });
    }
    return waited;
  };
  let listed;
  try {
    listed = await sessions.messages(sessionID);
  } catch (error) {
    // OpenCode 1.18.33 cannot list the messages of a session prompted with a json_schema format
    // ("Expected OutputFormatJsonSchema", https://github.com/anomalyco/opencode/issues/26929): such
    // a session was prompted before (the structured protocol), so this is a restart whose result
    // cannot be read. Let a running turn finish, then run the same attempt again.
    const waited = await waitWhileBusy();
    return { decision: 'redispatch', reason: `its messages cannot be read (${errorMessage(error).slice(0, 120)})`, waited };
  }
  let messages = since(listed);
  if (!messages) return { decision: 'fresh' };
  const waited = await waitWhileBusy();
  if (waited) messages = since(await sessions.messages(sessionID)) ?? messages;
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    const parsed = last.structured !== undefined ? validateOutput(last.structured, schema) : parseModelOutput(last.text, schema);
    if (parsed.ok) {
      return { decision: 'reused', value: parsed.value, waited };
    }
    return { decision: 'redispatch', reason: last.error ? `its turn ended with ${last.error.slice(0, 120)}` : `its last reply is not a valid result (${parsed.reason})`, waited };
  }
  return { decision: 'redispatch', reason: last?.error ? `its turn ended with ${last.error.slice(0, 120)}` : 'its turn never finished', waited };
}

/** What reconciliation decided for a restarted side effect, for the plan's journal. */
export interface ReconcileRecord {
  plan_id: string;
  /** Every role but a read-only ask's: an ask is not a side effect of the plan, so it is never restarted. */
  role: Exclude<TurnRecordRole, 'ask'>;
  session_id: string;
  idempotency_key?: string;
  decision: 'reused' | 'waited' | 'redispatch' | 'reused_session' | 'interrupted';
  detail?: string;
}

export interface TurnRecoveryOptions {
  sessions: SessionsPort;
  /** Whether the turn with this key was in flight in a restored snapshot (PlanHost.isRecovering). */
  isRecovering: (idempotencyKey: string) => boolean;
  onReconcile?: (record: ReconcileRecord) => void;
}

/**
 * Before a turn runs in a restored plan: its earlier result (`reused`), or, when it left none and
 * may not simply run again (`rerun` false: it changes files and no human said Re-run), the
 * interruption to report to the step machine, which asks at the resume gate. Undefined: run it.
 */
export async function recoverTurn<T>(
  { sessions, isRecovering, onReconcile }: TurnRecoveryOptions,
  record: Omit<ReconcileRecord, 'decision'> & { idempotency_key: string },
  /** `prompt`: the start of the turn's first prompt, as reconcileSession matches it. */
  turn: { prompt: string; schema: z.ZodType<T>; rerun: boolean; signal: AbortSignal },
): Promise<{ value: T } | InterruptedTurn | undefined> {
  if (!isRecovering(record.idempotency_key)) return undefined;
  const r = await reconcileSession(sessions, record.session_id, turn.prompt, turn.schema, turn.signal);
  if (r.decision === 'fresh') return undefined;
  if (r.decision === 'reused') {
    onReconcile?.({ ...record, decision: r.waited ? 'waited' : 'reused' });
    return { value: r.value };
  }
  if (turn.rerun) {
    onReconcile?.({ ...record, decision: 'redispatch', detail: r.reason });
    return undefined;
  }
  onReconcile?.({ ...record, decision: 'interrupted', detail: r.reason });
  const session = await sessions.get(record.session_id).catch(() => null); // only adds when it was last active
  return { type: 'interrupted', session_id: record.session_id, detail: r.reason, ...(session?.updatedAt ? { last_activity_at: session.updatedAt } : {}) };
}
