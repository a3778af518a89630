import type { PluginInput } from '@opencode-ai/plugin';
import { ZERO_USAGE, type Usage } from '../machines/usage.js';
import { PromptAbortedError } from './prompt-aborted-error.js';
import { usageOfMessage, type AssistantInfo, type UsageMeter } from './usage-meter.js';
import type { PermissionRule } from '../agents/permission-format.js';
import { openCodeErrorText } from '../text/opencode-error.js';

/**
 * The part of OpenCode the orchestration needs: child sessions and blocking prompts. One small
 * port so dispatch can be tested with a fake and the SDK's shapes stay in this file.
 */
export interface SessionsPort {
  create(input: {
    parentID?: string | null;
    title: string;
    permission?: PermissionRule[];
    metadata?: Record<string, unknown>;
    /** The directory the session belongs to (default the project's): every later call on it runs there. */
    directory?: string;
  }): Promise<{ id: string }>;
  prompt(input: {
    sessionID: string;
    agent: string;
    text: string;
    jsonSchema?: object;
    tools?: Record<string, boolean>;
    /** Aborts the prompt (and the session's turn); it then rejects with PromptAbortedError, which carries what it cost. */
    signal?: AbortSignal;
  }): Promise<PromptReply>;
  abort(sessionID: string): Promise<void>;
  /** The session's messages, oldest first, reduced to what reconciliation needs. */
  messages(sessionID: string): Promise<SessionMessage[]>;
  /** Whether OpenCode is running a turn in the session right now (busy or retrying). */
  busy(sessionID: string): Promise<boolean>;
  /** Direct children of a session with their metadata. */
  children(parentID: string): Promise<Array<{ id: string; metadata?: Record<string, unknown> }>>;
  /** The session's parent, metadata and last update (ISO), or null when it does not exist. */
  get(sessionID: string): Promise<{ id: string; parentID?: string; metadata?: Record<string, unknown>; updatedAt?: string } | null>;
}

export interface SessionMessage {
  role: 'user' | 'assistant';
  text: string;
  structured?: unknown;
  error?: string;
}

export interface PromptReply {
  structured?: unknown;
  text: string;
  /** OpenCode's error on the assistant message, e.g. StructuredOutputError. */
  error?: string;
  /** What the prompt cost: its assistant messages' tokens and cost (one turn, every model request of it). */
  usage: Usage;
}

type Client = PluginInput['client'];
type Loose = (options: Record<string, unknown>) => Promise<{ data?: unknown; error?: unknown }>;

/** The v1 client has no type for newer body fields (format, permission, metadata): pass them through. */
const call = (fn: unknown, client: unknown) => (fn as Loose).bind(client);

/**
 * `meter` adds the earlier model requests of a prompt that called tools (from `message.updated`
 * events); without it a reply's usage is its last request's.
 */
export function sessionsFromClient(
  client: Client,
  directory: string,
  log?: (level: 'warn', message: string) => void,
  meter?: UsageMeter,
): SessionsPort {
  const session = client.session;
  return {
    async create({ parentID, title, permission, metadata, directory: where }) {
      const res = await call(session.create, session)({
        body: { ...(parentID ? { parentID } : {}), title, ...(permission ? { permission } : {}), ...(metadata ? { metadata } : {}) },
        query: { directory: where ?? directory },
      });
      const data = res.data as { id?: string } | undefined;
      if (!data?.id) throw new Error(`OpenCode refused to create a session: ${openCodeErrorText(res.error)}`);
      return { id: data.id };
    },
    async prompt({ sessionID, agent, text, jsonSchema, tools, signal }) {
      // A failed abort leaves the turn running in OpenCode: say so (the idle watch still bounds the step).
      const abortFailed = (error: unknown) => log?.('warn', `aborting the turn in session ${sessionID} failed: ${openCodeErrorText(error)}`);
      const onAbort = () =>
        void session
          .abort({ path: { id: sessionID }, query: { directory } })
          .then((res) => res.error && abortFailed(res.error), abortFailed);
      signal?.addEventListener('abort', onAbort, { once: true });
      const untrack = meter?.track(sessionID);
      const sent = Date.now();
      // Stopped before it answered: the model requests it made are known only from the meter's events.
      const stopped = (cause: unknown, usage: Usage = meter ? meter.stoppedUsage(sessionID, sent) : { ...ZERO_USAGE, turns: 1 }) =>
        new PromptAbortedError(sessionID, usage, { cause });
      try {
        let res;
        try {
          res = await call(session.prompt, session)({
            path: { id: sessionID },
            query: { directory },
            body: {
              agent,
              parts: [{ type: 'text', text }],
              ...(jsonSchema ? { format: { type: 'json_schema', schema: jsonSchema } } : {}),
              // An agent whose permissions deny "*" would otherwise not be offered the format's tool.
              ...(tools || jsonSchema ? { tools: { ...tools, ...(jsonSchema ? { StructuredOutput: true } : {}) } } : {}),
            },
            ...(signal ? { signal } : {}),
          });
        } catch (error) {
          if (signal?.aborted) throw stopped(signal.reason);
          throw error;
        }
        const data = res.data as
          | { info?: AssistantInfo & { structured?: unknown; error?: unknown }; parts?: Array<{ type: string; text?: string; synthetic?: boolean }> }
          | undefined;
        if (!data?.info) {
          if (signal?.aborted) throw stopped(signal.reason);
          throw new Error(`OpenCode prompt failed in session ${sessionID}: ${openCodeErrorText(res.error)}`);
        }
        const usage = meter ? meter.promptUsage(sessionID, data.info) : usageOfMessage(data.info);
        // Answered as the signal aborted: the turn is stopped all the same, with what the reply cost.
        if (signal?.aborted) throw stopped(signal.reason, usage);
        const textOut = (data.parts ?? [])
          .filter((p) => p.type === 'text' && !p.synthetic)
          .map((p) => p.text ?? '')
          .join('\n');
        return {
          ...(data.info.structured !== undefined ? { structured: data.info.structured } : {}),
          text: textOut,
          ...(data.info.error ? { error: openCodeErrorText(data.info.error) } : {}),
          usage,
        };
      } finally {
        untrack?.();
        signal?.removeEventListener('abort', onAbort);
      }
    },
    async abort(sessionID) {
      await session.abort({ path: { id: sessionID }, query: { directory } });
    },
    async messages(sessionID) {
      const res = await call(session.messages, session)({ path: { id: sessionID }, query: { directory } });
      const data = res.data as Array<{ info: { role: string; structured?: unknown; error?: unknown }; parts: Array<{ type: string; text?: string; synthetic?: boolean }> }> | undefined;
      if (!data) throw new Error(`OpenCode did not list the messages of session ${sessionID}: ${openCodeErrorText(res.error)}`);
      return data.map((m) => ({
        role: m.info.role === 'user' ? 'user' : 'assistant',
        text: m.parts.filter((p) => p.type === 'text' && !p.synthetic).map((p) => p.text ?? '').join('\n'),
        ...(m.info.structured !== undefined ? { structured: m.info.structured } : {}),
        ...(m.info.error ? { error: openCodeErrorText(m.info.error) } : {}),
      }));
    },
    async busy(sessionID) {
      const res = await call(session.status, session)({ query: { directory } });
      const status = (res.data as Record<string, { type: string }> | undefined)?.[sessionID];
      return status !== undefined && status.type !== 'idle';
    },
    async children(parentID) {
      const res = await call(session.children, session)({ path: { id: parentID }, query: { directory } });
      const data = res.data as Array<{ id: string; metadata?: Record<string, unknown> }> | undefined;
      return (data ?? []).map((c) => ({ id: c.id, ...(c.metadata ? { metadata: c.metadata } : {}) }));
    },
    async get(sessionID) {
      const res = await call(session.get, session)({ path: { id: sessionID }, query: { directory } });
      const data = res.data as { id?: string; parentID?: string; metadata?: Record<string, unknown>; time?: { updated?: number } } | undefined;
      if (!data?.id) return null;
      return {
        id: data.id,
        ...(data.parentID ? { parentID: data.parentID } : {}),
        ...(data.metadata ? { metadata: data.metadata } : {}),
        ...(typeof data.time?.updated === 'number' ? { updatedAt: new Date(data.time.updated).toISOString() } : {}),
      };
    },
  };
}
