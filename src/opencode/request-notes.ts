import type { TranscriptMessage } from './tool-failures.js';

/**
 * Text added to a session's model requests from now on (after its first message), for those requests only: OpenCode rebuilds
 * the transcript it hands `experimental.chat.messages.transform` from storage before every request,
 * so nothing is saved and the person's transcript is unchanged. For what Orca learns while a turn
 * runs: the project's checks that fail before a plan, told to its planner as they become known.
 */
export interface RequestNotes {
  /** Adds `text` to each later request of the session (replacing what was set for it before). */
  set(sessionId: string, text: string): void;
  delete(sessionId: string): void;
  /** The `experimental.chat.messages.transform` hook: runs before every model request. */
  beforeModelRequest(messages: TranscriptMessage[]): void;
}

export function createRequestNotes(): RequestNotes {
  const notes = new Map<string, string>();
  return {
    set: (sessionId, text) => void notes.set(sessionId, text),
    delete: (sessionId) => void notes.delete(sessionId),
    beforeModelRequest(messages) {
      const sessionId = messages.at(-1)?.info.sessionID;
      const text = sessionId ? notes.get(sessionId) : undefined;
      if (!text) return;
      // Beside the session's first message, as context given with the task: at the end it would read as the
      // user saying it again after every tool result (a relay run found it so), and the requests from there on
      // share one prefix for a provider's cache.
      const first = messages.findIndex((m) => m.info.role === 'user');
      messages.splice(first + 1, 0, requestOnlyMessage(messages, text, 'note'));
    },
  };
}

/** A user message for this request only (see RequestNotes), after the transcript's last message. */
export function requestOnlyMessage(messages: TranscriptMessage[], text: string, kind: string): TranscriptMessage {
  const lastUser = messages.findLast((m) => m.info.role === 'user') ?? messages.at(-1)!;
  const id = `msg_orca_${kind}_${Date.now()}`;
  const { sessionID } = lastUser.info;
  return {
    info: { ...lastUser.info, id, role: 'user', time: { created: Date.now() } },
    parts: [{ id: `prt_orca_${kind}_${Date.now()}`, sessionID, messageID: id, type: 'text', text, synthetic: true }],
  };
}
