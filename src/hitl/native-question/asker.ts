import type { PluginInput } from '@opencode-ai/plugin';
import type { HitlQuestion } from '../../machines/types.js';
import { questionSessionsFromClient, type QuestionSessions } from './client-sessions.js';
import { openCodeErrorText } from '../../text/opencode-error.js';
import { QUESTION_MODEL } from './ids.js';
import { encodeQuestionPayload, questionMessage } from './payload.js';
import { findQuestionPart, partOutcome } from './question-part.js';
import { findRootSession } from './root-session.js';

export interface AskInput {
  /** The session whose code asks (any depth); the dialog is raised from a child of its root. */
  callerSessionId: string;
  /** Passed through as the emitter wrote them; one answer array comes back per question. */
  questions: HitlQuestion[];
  /** The child session's title, also the first line of its (visible) message. */
  title: string;
  /** Aborts the child session (and with it the open dialog); `ask` then rejects with the signal's reason. */
  signal: AbortSignal;
}

export type AskOutcome =
  | { kind: 'answered'; answers: string[][]; sessionId: string }
  | { kind: 'dismissed'; sessionId: string }
  | { kind: 'unavailable'; reason: string };

export interface QuestionAsker {
  ask(input: AskInput): Promise<AskOutcome>;
}

export interface AskerOptions {
  /** How long the run may take to show the question before the channel counts as broken (default 15 s). */
  startTimeoutMs?: number;
  /** How often the child session is read while waiting for the question to appear. */
  pollMs?: number;
  /** Hears what cannot be returned, e.g. a failed clean-up after the signal aborted. */
  log?: (level: 'warn', message: string) => void;
}

/** Channel 1 of the human-in-the-loop: OpenCode's own question dialog, raised by plugin code. */
export function createQuestionAsker(deps: { client: PluginInput['client']; directory: string } & AskerOptions): QuestionAsker {
  return questionAskerFor(questionSessionsFromClient(deps.client, deps.directory), deps);
}

/**
 * The asker over any QuestionSessions. Breakage (no provider, no question within the start
 * timeout, no tool part, odd answers) comes back as `unavailable` with a reason, so the caller
 * can fall back to another channel; the human's Esc comes back as `dismissed`.
 */
export function questionAskerFor(sessions: QuestionSessions, { startTimeoutMs = 15_000, pollMs = 150, log }: AskerOptions = {}): QuestionAsker {
  let listed = false; // the config hook runs once per instance: a listed model stays listed
  return {
    async ask({ callerSessionId, questions, title, signal }) {
      signal.throwIfAborted();
      if (questions.length === 0) return unavailable('expected at least one question');
      if (!listed) {
        const found = await sessions.questionModelListed().catch(() => undefined); // unknown: try, the timeout tells
        if (found === false) return unavailable(NOT_REGISTERED);
        listed = found === true;
      }
      let sessionId: string;
      try {
        const root = await findRootSession((id) => sessions.parentOf(id), callerSessionId);
        sessionId = await sessions.create({ parentID: root, title });
      } catch (error) {
        return unavailable(`could not open a question session under the root of ${callerSessionId}: ${openCodeErrorText(error, 'no response')}`);
      }
      return runQuestion({ sessions, sessionId, questions, title, signal, startTimeoutMs, pollMs, log });
    },
  };
}

type RunInput = Omit<AskInput, 'callerSessionId'> & Required<Pick<AskerOptions, 'startTimeoutMs' | 'pollMs'>> & Pick<AskerOptions, 'log'> & { sessions: QuestionSessions; sessionId: string };

async function runQuestion({ sessions, sessionId, questions, title, signal, startTimeoutMs, pollMs, log }: RunInput): Promise<AskOutcome> {
  let ended = false;
  const run = sessions
    .prompt({ sessionID: sessionId, text: questionMessage(title), system: encodeQuestionPayload(questions) })
    .catch((error: unknown) => ({ error: openCodeErrorText(error, 'no response') }))
    .finally(() => (ended = true));
  // Once: the signal and the start timeout may both want the session stopped.
  let stopping: Promise<string | undefined> | undefined;
  const stop = () =>
    (stopping ??= sessions.abort(sessionId).then(
      () => undefined,
      (error: unknown) => openCodeErrorText(error, 'no response'),
    ));
  const onAbort = () => void stop();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    // Until the dialog is up, a stuck run means breakage (OpenCode retries a failing provider forever).
    const deadline = Date.now() + startTimeoutMs;
    while (!ended && !(await questionShown(sessions, sessionId))) {
      signal.throwIfAborted();
      if (Date.now() >= deadline) {
        const failedStop = await stop();
        const why = `${await lastRunError(sessions, sessionId)}${failedStop ? `; stopping it failed: ${failedStop}` : ''}`;
        return unavailable(`no question appeared in session ${sessionId} within ${startTimeoutMs} ms${why}`);
      }
      await Promise.race([run, delay(pollMs)]);
    }
    // Then the human takes as long as they need; the signal is the only way out besides an answer.
    const end = await Promise.race([run, aborted(signal)]);
    signal.throwIfAborted();
    const outcome = partOutcome(findQuestionPart(await sessions.messages(sessionId)), questions.length);
    if (outcome.kind === 'unavailable') {
      return unavailable(`${outcome.reason} (session ${sessionId}${end.error ? `; run error: ${end.error}` : ''})`);
    }
    return { ...outcome, sessionId };
  } catch (error) {
    if (signal.aborted) {
      // Settle only once the dialog is gone, so the caller may ask again through another channel.
      const failedStop = await stop();
      if (failedStop) log?.('warn', `native question: closing session ${sessionId} after abort failed: ${failedStop}`);
      throw signal.reason;
    }
    return unavailable(`reading session ${sessionId} failed: ${openCodeErrorText(error, 'no response')}`);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

async function questionShown(sessions: QuestionSessions, sessionId: string): Promise<boolean> {
  // A failed read is tried again at the next poll; the start timeout bounds how long.
  const part = findQuestionPart(await sessions.messages(sessionId).catch(() => undefined));
  return part !== undefined;
}

async function lastRunError(sessions: QuestionSessions, sessionId: string): Promise<string> {
  // Only adds detail to a failure already being reported.
  const messages = await sessions.messages(sessionId).catch(() => undefined);
  if (!Array.isArray(messages)) return '';
  const error = messages.map((m: { info?: { error?: unknown } }) => m?.info?.error).filter(Boolean).at(-1);
  return error ? `; last error: ${openCodeErrorText(error, 'no response')}` : '';
}

const NOT_REGISTERED =
  `OpenCode does not list the model ${QUESTION_MODEL.providerID}/${QUESTION_MODEL.modelID}: registerQuestionChannel(cfg) ` +
  `was not called in the plugin's config hook or installed nothing (no "model" in opencode.json, or "${QUESTION_MODEL.providerID}" in disabled_providers)`;

function unavailable(reason: string): AskOutcome {
  return { kind: 'unavailable', reason: `native question dialog unavailable: ${reason}` };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Settles (never rejects) once the signal aborts; the caller then throws the signal's reason. */
function aborted(signal: AbortSignal): Promise<{ error?: string }> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve({});
    else signal.addEventListener('abort', () => resolve({}), { once: true });
  });
}
