import { addUsage, ZERO_USAGE, type Usage } from '../machines/usage.js';
import type { BusEvent } from './session-monitor.js';

/** The part of an assistant message's info that says what it cost (OpenCode 1.18: `tokens`, `cost`). */
export interface AssistantInfo {
  id?: string;
  parentID?: string;
  role?: string;
  cost?: number;
  tokens?: { input?: number; output?: number; reasoning?: number; cache?: { read?: number; write?: number } };
  /** When OpenCode created the message (ms since the epoch, the plugin's own clock: it runs in OpenCode's process). */
  time?: { created?: number };
}

const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0);

/** One assistant message's usage as OpenCode reports it: one model request, of one Orca turn. */
export const usageOfMessage = (info: AssistantInfo): Usage => ({
  turns: 1,
  model_calls: 1,
  input: count(info.tokens?.input),
  output: count(info.tokens?.output),
  reasoning: count(info.tokens?.reasoning),
  cache_read: count(info.tokens?.cache?.read),
  cache_write: count(info.tokens?.cache?.write),
  cost: count(info.cost),
});

/**
 * What a prompt cost. A blocking prompt answers with its LAST assistant message only, but a turn
 * with tool calls makes one model request (one assistant message) per step of its loop: the
 * earlier ones are known from their `message.updated` events. The meter keeps those, only for
 * sessions a prompt of Orca's is running in, and sums every assistant message that answers the
 * same user message as the reply (same parentID). No GET of the session's messages: OpenCode
 * cannot list a structured-output session (https://github.com/anomalyco/opencode/issues/26929).
 */
export interface UsageMeter {
  /** Feed every bus event here (the plugin's `event` hook). */
  observe(event: BusEvent): void;
  /** Keep the session's assistant messages until the returned function is called (around a prompt). */
  track(sessionId: string): () => void;
  /**
   * The prompt's usage: the reply's message plus the tracked messages answering the same user
   * message; `turns` is 1, `model_calls` the number of those messages (one per model request).
   */
  promptUsage(sessionId: string, reply: AssistantInfo): Usage;
  /**
   * The usage of a prompt stopped before it answered (its fetch aborted, so there is no reply to
   * match): the tracked assistant messages OpenCode created since `since` (when the prompt was
   * sent), each one model request, the one in flight included (OpenCode records it with the
   * tokens it knows, none when the stream had not finished). `turns` is 1, as for any prompt.
   */
  stoppedUsage(sessionId: string, since: number): Usage;
}

export function createUsageMeter(): UsageMeter {
  const sessions = new Map<string, { refs: number; messages: Map<string, { parentID?: string; created?: number; usage: Usage }> }>();
  return {
    observe: function observeUsage(event) {
      if (event.type !== 'message.updated') return;
      const info = (event.properties as { info?: AssistantInfo & { sessionID?: string } } | undefined)?.info;
      if (!info || info.role !== 'assistant' || !info.id || !info.sessionID) return;
      const tracked = sessions.get(info.sessionID);
      if (!tracked) return;
      const created = info.time?.created;
      tracked.messages.set(info.id, {
        ...(info.parentID ? { parentID: info.parentID } : {}),
        ...(typeof created === 'number' ? { created } : {}),
        usage: usageOfMessage(info),
      });
    },
    track(sessionId) {
      const entry = sessions.get(sessionId) ?? { refs: 0, messages: new Map() };
      entry.refs += 1;
      sessions.set(sessionId, entry);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        entry.refs -= 1;
        if (entry.refs === 0 && sessions.get(sessionId) === entry) sessions.delete(sessionId);
      };
    },
    promptUsage(sessionId, reply) {
      let usage = usageOfMessage(reply);
      const tracked = sessions.get(sessionId);
      if (!tracked || !reply.parentID) return usage;
      for (const [id, message] of tracked.messages) {
        if (message.parentID !== reply.parentID || id === reply.id) continue;
        usage = addUsage(usage, { ...message.usage, turns: 0 }); // one more model request of the same turn
        tracked.messages.delete(id);
      }
      if (reply.id) tracked.messages.delete(reply.id);
      return usage;
    },
    stoppedUsage(sessionId, since) {
      let usage: Usage = { ...ZERO_USAGE, turns: 1 }; // a prompt, even one stopped before any model request
      const tracked = sessions.get(sessionId);
      if (!tracked) return usage;
      for (const [id, message] of tracked.messages) {
        // An earlier prompt's message whose update came late answers that prompt, not this one.
        if (message.created !== undefined && message.created < since) continue;
        usage = addUsage(usage, { ...message.usage, turns: 0 });
        tracked.messages.delete(id);
      }
      return usage;
    },
  };
}

