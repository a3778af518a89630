import type { PluginInput } from '@opencode-ai/plugin';
import { NOTE_PREFIX, QUESTION_AGENT_ID, QUESTION_MODEL } from '../hitl/native-question/index.js';

/**
 * Orca's own lines in a session, with no model turn: a turn of the in-process orca-hitl model
 * (the one that raises the question dialogs), whose user message carries the line as a synthetic
 * part (the TUI does not show it) and which says the line back once, as its reply.
 *
 * The turn's user message names the hidden orca-hitl agent on purpose: the TUI adopts the agent and
 * model of a session's last user message when it opens the session, but only an agent it lists, so
 * the user's own agent and model stay selected. A note for a busy session waits until the session
 * is idle (its `session.status` events), so it never lands inside somebody's running turn.
 */
export interface SessionNotes {
  /** Post `text` in the session once it is idle; never throws (a failure is logged). */
  post(sessionId: string, text: string): void;
  /** Feed OpenCode's events (the plugin's `event` hook): busy and idle sessions. */
  observe(event: { type: string; properties?: unknown }): void;
}

/**
 * The note as the TUI should show it: the TUI renders replies as markdown, where the underscores of
 * two plan ids pair up into italics (and eat themselves) and `<guidance>` reads as a tag. Ids and
 * commands become code spans; other underscores are escaped.
 */
export function forMarkdown(text: string): string {
  const code = /(?:\b(?:plan|ses)_[0-9A-Za-z]+\b|(?:^|(?<=\s))\/orca-[a-z]+(?: <[^>\n]+>)?|\borca (?:show|plans|decide|ui)\b(?: (?:plan|ses)_[0-9A-Za-z]+)?)/g;
  let out = '';
  let at = 0;
  for (const match of text.matchAll(code)) {
    out += text.slice(at, match.index).replace(/_/g, '\\_') + `\`${match[0]}\``;
    at = match.index + match[0].length;
  }
  return out + text.slice(at).replace(/_/g, '\\_');
}

/** What posting needs from OpenCode: one turn on the in-process model. */
export type PostNote = (sessionId: string, text: string) => Promise<void>;

export function sessionNotes(postNote: PostNote, log: (level: 'warn', message: string) => void): SessionNotes {
  const busy = new Set<string>();
  const held = new Map<string, string[]>();
  const send = (sessionId: string, text: string) =>
    void postNote(sessionId, text).catch((error: unknown) =>
      log('warn', `note for session ${sessionId} not posted (${(error as Error)?.message ?? String(error)}): ${text.slice(0, 100)}`),
    );
  const release = (sessionId: string) => {
    busy.delete(sessionId);
    const waiting = held.get(sessionId);
    held.delete(sessionId);
    for (const text of waiting ?? []) send(sessionId, text);
  };
  return {
    post(sessionId, text) {
      if (!busy.has(sessionId)) return send(sessionId, text);
      held.set(sessionId, [...(held.get(sessionId) ?? []), text]);
    },
    observe(event) {
      const p = event.properties as { sessionID?: unknown; status?: { type?: unknown } } | undefined;
      if (typeof p?.sessionID !== 'string') return;
      if (event.type === 'session.idle') return release(p.sessionID);
      if (event.type !== 'session.status') return;
      if (p.status?.type === 'idle') release(p.sessionID);
      else busy.add(p.sessionID);
    },
  };
}

/** The note's turn over the plugin's v1 client. */
export function postNoteWith(client: PluginInput['client'], directory: string): PostNote {
  return async (sessionId, text) => {
    const res = await client.session.prompt({
      path: { id: sessionId },
      query: { directory },
      body: {
        agent: QUESTION_AGENT_ID,
        model: { ...QUESTION_MODEL },
        tools: { '*': false },
        parts: [{ type: 'text', text: `${NOTE_PREFIX} ${forMarkdown(text)}`, synthetic: true }],
      },
    });
    const error = (res.data?.info as { error?: { name?: string; data?: { message?: string } } } | undefined)?.error ?? (res.data ? undefined : res.error);
    if (error) throw new Error(`OpenCode answered ${JSON.stringify(error).slice(0, 200)}`);
  };
}
