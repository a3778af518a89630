import type { PluginInput } from '@opencode-ai/plugin';
import { quote } from '../text/quote.js';
import { forTerminalLine } from '../text/terminal.js';

/** A tool call's part as OpenCode stores it (only what finding and retitling it needs). */
export interface ToolPart {
  id: string;
  sessionID: string;
  messageID: string;
  type: 'tool';
  tool: string;
  state: { status: string; input?: Record<string, unknown>; title?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/**
 * What a running tool call shows of its plan: lines of progress, the first saying where the plan
 * stands. That first line is also the part's title, so the two never disagree: one value, written
 * in one PATCH, and taken back together.
 */
export type ToolProgress = readonly string[];

/** The input entry under which the progress shows: the TUI draws `⚙ orca_ask_planner [message=…, progress=…]`. */
export const PROGRESS_KEY = 'progress';

/**
 * What OpenCode shows of a running tool call. In 1.18.33 a plugin tool's `ctx.metadata({title})`
 * shows nothing (https://github.com/anomalyco/opencode/issues/50313), and the TUI draws a plugin
 * tool's part as `⚙ <tool> [key=value, …]` from the string, number and boolean entries of its
 * `state.input`, never its title, metadata or (unless the user turned on generic tool output) its
 * output. So the part is changed through the server: PATCH
 * /session/:id/message/:messageID/part/:partID with the whole part, which publishes
 * `message.part.updated` to every client; the progress goes into `state.input` under
 * PROGRESS_KEY, where the TUI draws it, line breaks kept. OpenCode completes the part with the input
 * it has stored (measured: a completed part kept the progress entry), which the model reads in every
 * later request as its own call's arguments: `restore` puts the part back as found before the tool
 * returns.
 */
export interface ToolTitlePort {
  /** The running part of the call to `tool` with this input in the message, or null. */
  find(at: { sessionID: string; messageID: string }, call: { tool: string; input: Record<string, unknown> }): Promise<ToolPart | null>;
  /**
   * Show these lines on the running part, the first as its title too (each line with its control
   * and bidi characters shown visibly: the TUI draws them in a terminal); resolves once the server took it.
   */
  show(part: ToolPart, lines: ToolProgress): Promise<void>;
  /**
   * Give the part back the input and the title `find` saw (what the model sent, no progress left in
   * either). Before the tool returns, the part is running and OpenCode completes it with what it
   * stores then. After Esc (`turn` aborted) OpenCode owns the part until the turn has ended: 250 ms
   * after the abort it reads the part and writes it again as aborted (with the input it read), so a
   * write of Orca's in between is lost or, worse, makes the part running again for good. So after
   * Esc nothing is written until OpenCode has completed the turn's message; then the part gets its
   * input and title back in the state OpenCode left it, and a part still running then (a write of
   * Orca's landed after OpenCode's) is ended as OpenCode ends an aborted call.
   */
  restore(part: ToolPart, turn: AbortSignal): Promise<void>;
}

/** How often, and how long at most, `restore` after Esc looks whether OpenCode has ended the turn. */
const ENDED_POLL = { everyMs: 100, forMs: 30_000 } as const;

type RawClient = {
  get(options: { url: string; query?: Record<string, unknown> }): Promise<{ data?: unknown; error?: unknown }>;
  patch(options: { url: string; query?: Record<string, unknown>; body?: unknown; headers?: Record<string, string> }): Promise<{ data?: unknown; error?: unknown }>;
};

const sameInput = (a: Record<string, unknown> | undefined, b: Record<string, unknown>) =>
  a !== undefined && Object.keys(b).every((k) => b[k] === undefined || JSON.stringify(a[k]) === JSON.stringify(b[k]));

/** Whether the part shows what the model sent: the input and title `find` saw. */
const sameAsSent = (now: ToolPart, sent: ToolPart) => JSON.stringify(now.state.input) === JSON.stringify(sent.state.input) && now.state.title === sent.state.title;

/** The part as it is now with the input and title it was found with (the title goes back with the input: a progress title left on a part whose progress entry is gone would stay behind). */
function putBack(now: ToolPart, sent: ToolPart): ToolPart {
  const { title: _shown, ...state } = now.state;
  return { ...now, state: { ...state, input: sent.state.input, ...(sent.state.title !== undefined ? { title: sent.state.title } : {}) } };
}

/** Over the plugin's v1 client: its hey-api request client, which the v1 groups share (same fetch and auth); v1 has no part API. */
export function toolTitlesFromClient(client: PluginInput['client'], directory: string, endedPoll: { everyMs: number; forMs: number } = ENDED_POLL): ToolTitlePort {
  const raw = (client.session as unknown as { _client?: RawClient })._client;
  const rawClient = () => {
    if (typeof raw?.get !== 'function' || typeof raw.patch !== 'function') {
      throw new Error('Expected the v1 SDK client to expose its request client (_client); cannot retitle the tool call.');
    }
    return raw;
  };
  const path = (...segments: string[]) => segments.map(encodeURIComponent).join('/');
  /** The message's parts, and whether OpenCode has completed the message (after Esc: ended every call of it). */
  const messageOf = async (sessionID: string, messageID: string) => {
    const res = await rawClient().get({ url: `/session/${path(sessionID)}/message/${path(messageID)}`, query: { directory } });
    const message = res.data as { info?: { time?: { completed?: number } }; parts?: ToolPart[] } | undefined;
    if (!Array.isArray(message?.parts)) throw new Error(`Expected GET /session/${sessionID}/message/${messageID} to return the message's parts, got ${quote(res.error ?? res.data)}`);
    return { parts: message.parts, completed: message.info?.time?.completed !== undefined };
  };
  const partsOf = async (sessionID: string, messageID: string) => (await messageOf(sessionID, messageID)).parts;
  return {
    async find({ sessionID, messageID }, call) {
      const parts = await partsOf(sessionID, messageID);
      return parts.find((p) => p.type === 'tool' && p.tool === call.tool && p.state?.status === 'running' && sameInput(p.state.input, call.input)) ?? null;
    },
    async show(part, lines) {
      const shown = lines.map(forTerminalLine);
      const input = { ...part.state.input, [PROGRESS_KEY]: shown.join('\n') };
      await patch({ ...part, state: { ...part.state, input, title: shown[0] ?? '' } });
    },
    async restore(part, turn) {
      if (!turn.aborted) {
        const now = (await partsOf(part.sessionID, part.messageID)).find((p) => p.id === part.id);
        if (!now) return;
        // Esc during the read: write nothing, OpenCode's own end of the part comes after; wait for it below.
        if (!turn.aborted && !sameAsSent(now, part)) await patch(putBack(now, part));
        if (!turn.aborted) return;
      }
      const now = (await endedMessage(part)).find((p) => p.id === part.id);
      if (!now) return;
      if (now.state.status === 'running') {
        // OpenCode ended the call, then a write of Orca's (a retitle or put-back in flight at Esc) made it running again.
        const end = Date.now();
        const started = (now.state.time as { start?: number } | undefined)?.start ?? end;
        const metadata = typeof now.state.metadata === 'object' && now.state.metadata !== null ? now.state.metadata : {};
        const aborted = { ...now.state, status: 'error', error: 'Tool execution aborted', metadata: { ...metadata, interrupted: true }, time: { start: started, end } };
        await patch(putBack({ ...now, state: aborted }, part));
      } else if (!sameAsSent(now, part)) await patch(putBack(now, part));
    },
  };

  /** The message's parts once OpenCode has completed the message (after Esc, once it has ended every call of it). */
  async function endedMessage(part: ToolPart): Promise<ToolPart[]> {
    const until = Date.now() + endedPoll.forMs;
    for (;;) {
      const { parts, completed } = await messageOf(part.sessionID, part.messageID);
      if (completed) return parts;
      if (Date.now() >= until) throw new Error(`OpenCode had not ended the aborted turn's message ${part.messageID} after ${endedPoll.forMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, endedPoll.everyMs));
    }
  }

  async function patch(part: ToolPart): Promise<void> {
    const res = await rawClient().patch({
      url: `/session/${path(part.sessionID)}/message/${path(part.messageID)}/part/${path(part.id)}`,
      query: { directory },
      body: part,
      headers: { 'content-type': 'application/json' },
    });
    if (res.error) throw new Error(`Expected PATCH of tool part ${part.id} to succeed: ${quote(res.error)}`);
  }
}
