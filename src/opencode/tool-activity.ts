import type { BusEvent } from './session-monitor.js';

/** OpenCode's structured-output tool: it only hands the turn's answer back, it never touches a file. */
const ANSWER_TOOL = 'StructuredOutput';

/**
 * Since when a session's tool calls cannot have written anything, from OpenCode's hooks around every
 * tool call. OpenCode 1.18 awaits `tool.execute.before` on the call's path before the tool runs, for
 * its own tools, plugin tools, MCP tools and subtasks, and `tool.execute.after` once it returned. A
 * call that throws gets no `after` (https://github.com/anomalyco/opencode/issues/27900): its part's
 * `error` on the bus ends it then, later than it really ended, which only makes the answer later.
 * What writes without a tool call is a person's doing, not the step's turn: a shell command typed in
 * the step's session (`!`, which fires no hook) or an undo there; it counts as any edit of yours would.
 *
 * What it is for: a step in the shared tree is measured by a snapshot of the tree, and a snapshot
 * another step began once this session's last call had ended holds everything this session wrote
 * (workspace/snapshot.ts `quietSince`). Four steps ending at once then share one snapshot instead of
 * waiting for two in a row.
 */
export interface ToolActivity {
  /** The `tool.execute.before` hook. */
  before(input: { tool: string; sessionID: string; callID: string }): void;
  /** The `tool.execute.after` hook. */
  after(input: { sessionID: string; callID: string }): void;
  /** Every bus event: a tool part that ended in `error` (no `after` hook came for it), a deleted session. */
  observe(event: BusEvent): void;
  /**
   * A time of `now` (performance.now() by default) from which no tool call of the session ran: its
   * last call's end, or when this process began to listen (a call of an earlier process ended before
   * it). Undefined while one of its calls runs.
   */
  quietSince(sessionId: string): number | undefined;
}

export function createToolActivity({ now = () => performance.now() }: { now?: () => number } = {}): ToolActivity {
  const listening = now();
  const sessions = new Map<string, { running: Set<string>; endedAt: number }>();
  const end = (sessionId: string, callId: string) => {
    const entry = sessions.get(sessionId);
    if (!entry?.running.delete(callId)) return;
    entry.endedAt = now();
  };
  return {
    before({ tool, sessionID, callID }) {
      if (tool === ANSWER_TOOL) return;
      let entry = sessions.get(sessionID);
      if (!entry) sessions.set(sessionID, (entry = { running: new Set(), endedAt: listening }));
      // A call without an id (none seen in 1.18) is tracked under one, so its `after` still ends it.
      entry.running.add(String(callID));
    },
    after: ({ sessionID, callID }) => end(sessionID, String(callID)),
    observe(event) {
      const p = event.properties as { info?: { id?: unknown }; part?: { type?: unknown; sessionID?: unknown; callID?: unknown; state?: { status?: unknown } } } | undefined;
      if (event.type === 'session.deleted' && typeof p?.info?.id === 'string') sessions.delete(p.info.id);
      if (event.type !== 'message.part.updated' || p?.part?.type !== 'tool') return;
      const { sessionID, callID, state } = p.part;
      if (typeof sessionID === 'string' && typeof callID === 'string' && (state?.status === 'error' || state?.status === 'completed')) end(sessionID, callID);
    },
    quietSince(sessionId) {
      const entry = sessions.get(sessionId);
      if (!entry) return listening;
      return entry.running.size === 0 ? entry.endedAt : undefined;
    },
  };
}
