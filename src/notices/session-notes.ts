import type { PluginInput } from '@opencode-ai/plugin';
import { forTerminal } from '../text/terminal.js';
import { errorMessage } from '../errors.js';

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
  /** Like post, resolving once the note is in the session (true) or its turn failed (false, logged): what must be read before a question. */
  say(sessionId: string, text: string): Promise<boolean>;
  /** After the session's current turn (a slash command's, on the in-process model), give it back its own agent and model. */
  restoreAfterTurn(sessionId: string): void;
  /**
   * A turn starts in the session (a user message, a command: the plugin's `chat.message` and
   * `command.execute.before` hooks), before its busy status is evented: a restore still on its way
   * posts nothing then, or its message would land after the new one and be the turn's last (OpenCode
   * would answer it: a model turn nobody asked for). One already posting is waited for (at most
   * RESTORE_WAIT_MS): the hook's turn goes on once it landed, so the new message comes after it.
   * The session counts as busy from here, not from its status event: a note said meanwhile (the
   * approval document of a plan /orca-resume follows) waits for the turn's end, else the in-process
   * model answers the command's turn with the note (seen under load in session-gates.e2e). With no
   * status of the session within TURN_START_WAIT_MS, it counts as idle again.
   */
  turnStarting(sessionId: string): Promise<void>;
  /** Feed OpenCode's events (the plugin's `event` hook): busy and idle sessions. */
  observe(event: { type: string; properties?: unknown }): void;
}

/**
 * The note as the TUI should show it, and the one way Orca's lines reach it (notes and slash-command
 * replies). The TUI renders replies as markdown and, in 1.18.33, shows a backslash escape as typed
 * (`a\_b` reads "a\_b", checked in tmux): a code span is the only thing that keeps text as it is. So
 * ids and commands become code spans (two plan ids would otherwise pair their underscores into
 * italics, and `<guidance>` could read as a tag), fenced blocks (an error, a conflict: see
 * src/hitl/gate-note.ts) stay as they are, and nothing else is escaped. Control and bidi characters
 * of model-written text are shown visibly everywhere (forTerminal): the TUI draws the note in a terminal.
 */
export function forMarkdown(note: string): string {
  let fence: string | null = null; // the fence of the verbatim block the line is in
  return forTerminal(note)
    .split('\n')
    .map((line) => {
      const marker = /^(`{3,})/.exec(line)?.[1];
      if (fence !== null) {
        if (marker !== undefined && marker.length >= fence.length && line.trim() === marker) fence = null;
        return line;
      }
      if (marker !== undefined) {
        fence = marker;
        return line;
      }
      return line.replace(CODE, (match) => `\`${match}\``);
    })
    .join('\n');
}

/** What a note shows as code: plan and session ids, Orca's commands (with their `<argument>`), the CLI's verbs. */
const CODE = /(?:\b(?:plan|ses)_[0-9A-Za-z]+\b|(?:^|(?<=\s))\/orca-[a-z]+(?: <[^>\n]+>)?|\borca (?:show|plans|decide|ui)\b(?: (?:plan|ses)_[0-9A-Za-z]+)?)/g;

/** What notes need from OpenCode. */
export interface NotePorts {
  /** One turn on the in-process model that says `text` back. */
  post(sessionId: string, text: string): Promise<void>;
  /**
   * A turn on the in-process model leaves it as the session's model: OpenCode 1.18 runs a later
   * prompt that names no model (the API, `opencode run -s`) on the session's last one. This puts the
   * agent and model of the session's last own turn back, with a hidden message and no model turn.
   * `quiet` says, just before the message is posted, whether no turn started since the restore was
   * asked (false: post nothing).
   */
  restore(sessionId: string, quiet: () => boolean): Promise<void>;
}

export function sessionNotes(ports: NotePorts, log: (level: 'warn', message: string) => void): SessionNotes {
  const busy = new Set<string>();
  /** Notes waiting for their session to be idle, each with who waits for it to be said. */
  const held = new Map<string, Array<{ text: string; said?: (ok: boolean) => void }>>();
  const restoring = new Set<string>();
  const posting = new Set<string>();
  /**
   * Sessions with a restore on its way: the turns the hooks saw start there since the first of them
   * was asked. A restore posts only if none started since it was asked; the entry goes with the last.
   */
  const restores = new Map<string, { turns: number; pending: number; settled: Promise<void>; settle: () => void }>();
  const restore = async (sessionId: string, what: string) => {
    const entry = restores.get(sessionId) ?? newRestoreEntry();
    restores.set(sessionId, entry);
    entry.pending++;
    const asked = entry.turns;
    try {
      await ports.restore(sessionId, () => entry.turns === asked).catch(failed(what, sessionId));
    } finally {
      if (--entry.pending === 0) {
        restores.delete(sessionId);
        entry.settle();
      }
    }
  };
  const failed = (what: string, sessionId: string) => (error: unknown) =>
    log('warn', `${what} for session ${sessionId} failed (${errorMessage(error)})`);
  /**
   * One note turn at a time per session, the notes held meanwhile gathered into the next: a user
   * message that lands while the in-process model answers the one before is answered alone, and the
   * note before it is never said (measured on 1.18.33: two notes posted together, one shown).
   */
  const drain = async (sessionId: string) => {
    if (posting.has(sessionId)) return;
    posting.add(sessionId);
    let said = false;
    try {
      while (!busy.has(sessionId) && held.get(sessionId)?.length) {
        const notes = held.get(sessionId)!.splice(0);
        const text = notes.map((note) => note.text).join('\n\n');
        const ok = await ports.post(sessionId, text).then(
          () => true,
          (error: unknown) => {
            failed(`posting the note "${text.slice(0, 100)}"`, sessionId)(error);
            return false;
          },
        );
        said ||= ok;
        for (const note of notes) note.said?.(ok);
      }
      if (said) await restore(sessionId, "putting back the session's model after a note");
    } finally {
      posting.delete(sessionId);
      if (held.get(sessionId)?.length === 0) held.delete(sessionId);
    }
    // Held while this drain ended (its own turn's last busy status): go on once idle.
    if (!busy.has(sessionId) && held.get(sessionId)?.length) void drain(sessionId);
  };
  /** Turns the hooks saw start whose session has evented no status yet, each with the timer that gives up on it. */
  const starting = new Map<string, ReturnType<typeof setTimeout>>();
  const evented = (sessionId: string) => {
    clearTimeout(starting.get(sessionId));
    starting.delete(sessionId);
  };
  const release = (sessionId: string) => {
    evented(sessionId);
    busy.delete(sessionId);
    if (restoring.delete(sessionId)) void restore(sessionId, "putting back the session's model after a command");
    void drain(sessionId);
  };
  const hold = (sessionId: string, note: { text: string; said?: (ok: boolean) => void }) => {
    held.set(sessionId, [...(held.get(sessionId) ?? []), note]);
    if (!busy.has(sessionId)) void drain(sessionId);
  };
  return {
    post: (sessionId, text) => hold(sessionId, { text }),
    say: (sessionId, text) => new Promise<boolean>((said) => hold(sessionId, { text, said })),
    restoreAfterTurn(sessionId) {
      restoring.add(sessionId);
    },
    turnStarting(sessionId) {
      busy.add(sessionId);
      clearTimeout(starting.get(sessionId));
      const giveUp = setTimeout(() => starting.has(sessionId) && release(sessionId), TURN_START_WAIT_MS);
      (giveUp as { unref?: () => void }).unref?.();
      starting.set(sessionId, giveUp);
      const entry = restores.get(sessionId);
      if (!entry) return Promise.resolve();
      entry.turns++;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, RESTORE_WAIT_MS)));
      return Promise.race([entry.settled, bound]).finally(() => clearTimeout(timer));
    },
    observe(event) {
      const p = event.properties as { sessionID?: unknown; status?: { type?: unknown } } | undefined;
      if (typeof p?.sessionID !== 'string') return;
      if (event.type === 'session.idle') return release(p.sessionID);
      if (event.type !== 'session.status') return;
      if (p.status?.type === 'idle') release(p.sessionID);
      else {
        evented(p.sessionID);
        busy.add(p.sessionID);
      }
    },
  };
}

/** How long a turn starting waits at most for a restore on its way (turnStarting): a stuck one never holds the user's turn. */
export const RESTORE_WAIT_MS = 5_000;

/** How long a turn the hooks saw start counts as busy with no status of its session evented (turnStarting): notes are never held for good. */
export const TURN_START_WAIT_MS = 30_000;

function newRestoreEntry() {
  let settle: () => void = () => {};
  const settled = new Promise<void>((resolve) => (settle = resolve));
  return { turns: 0, pending: 0, settled, settle };
}

/** Whether a message's parts are the hidden restore message's (its own `chat.message` must not wait for itself). */
export function isRestoreMessage(parts: ReadonlyArray<{ type: string; text?: string }>): boolean {
  return parts.some((part) => part.type === 'text' && part.text === RESTORE_TEXT);
}

/** What the hidden message that puts the session's model back says to the model that reads it later. */
export const RESTORE_TEXT = '(Orca, the plugin, posted the line above without a model turn. Nothing to answer.)';

type UserInfo = { role: string; agent?: string; model?: { providerID: string; modelID: string } };

/**
 * Who says the notes: the hidden agent and in-process model of the question dialog
 * (src/hitl/native-question), and the prefix that makes that model say a message's text back.
 * Handed in by the composition root, so what a person is told does not depend on how a gate asks.
 */
export interface NoteSpeaker {
  agent: string;
  model: { providerID: string; modelID: string };
  prefix: string;
}

/** The notes' turns over the plugin's v1 client, said by `speaker`. */
export function notePortsWith(client: PluginInput['client'], directory: string, speaker: NoteSpeaker): NotePorts {
  return { post: postNoteWith(client, directory, speaker), restore: restoreWith(client, directory, speaker) };
}

function restoreWith(client: PluginInput['client'], directory: string, speaker: NoteSpeaker): NotePorts['restore'] {
  return async (sessionId, quiet) => {
    const res = await client.session.messages({ path: { id: sessionId }, query: { directory, limit: 50 } });
    if (!res.data) throw new Error(`Expected the messages of session ${sessionId}: ${JSON.stringify(res.error).slice(0, 200)}`);
    const users = res.data.map((m) => m.info as UserInfo).filter((info) => info.role === 'user');
    const own = users.findLast((info) => info.agent !== speaker.agent && info.model);
    // Nothing to go back to, or the last turn was the session's own already.
    if (!own?.agent || !own.model || users.at(-1) === own) return;
    // A turn started meanwhile (the user's next prompt, which named its model): a message posted
    // now would land after the user's and read as the last thing they said. Leave it.
    const status = await client.session.status({ query: { directory } });
    const now = (status.data as Record<string, { type?: string }> | undefined)?.[sessionId];
    if (now !== undefined && now.type !== 'idle') return;
    // A turn that started during the two reads above is not evented as busy yet: the hooks saw it.
    if (!quiet()) return;
    const put = await client.session.prompt({
      path: { id: sessionId },
      query: { directory },
      body: { agent: own.agent, model: own.model, noReply: true, parts: [{ type: 'text', text: RESTORE_TEXT, synthetic: true }] },
    });
    if (!put.data) throw new Error(`OpenCode answered ${JSON.stringify(put.error).slice(0, 200)}`);
  };
}

function postNoteWith(client: PluginInput['client'], directory: string, speaker: NoteSpeaker): NotePorts['post'] {
  return async (sessionId, text) => {
    const res = await client.session.prompt({
      path: { id: sessionId },
      query: { directory },
      body: {
        // No `tools` map here: OpenCode 1.18 turns a prompt's `tools` into a permission of the whole
        // session, which would take Orca's tools away from it for good. The hidden agent allows only
        // the question tool anyway, and the in-process model answers a note with text.
        agent: speaker.agent,
        model: { ...speaker.model },
        parts: [{ type: 'text', text: `${speaker.prefix} ${forMarkdown(text)}`, synthetic: true }],
      },
    });
    const error = (res.data?.info as { error?: { name?: string; data?: { message?: string } } } | undefined)?.error ?? (res.data ? undefined : res.error);
    if (error) throw new Error(`OpenCode answered ${JSON.stringify(error).slice(0, 200)}`);
  };
}
