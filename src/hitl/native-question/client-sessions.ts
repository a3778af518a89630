import type { PluginInput } from '@opencode-ai/plugin';
import { QUESTION_AGENT_ID, QUESTION_MODEL, QUESTION_MODEL_ID, QUESTION_PROVIDER_ID } from './ids.js';
import { rejectOpenQuestions } from './open-questions.js';
import { openCodeErrorText } from '../../text/opencode-error.js';

/** The few session calls the asker makes, so its logic can run against a fake. */
export interface QuestionSessions {
  /** Whether OpenCode lists the question model (false: not registered or disabled; undefined: cannot tell). */
  questionModelListed(): Promise<boolean | undefined>;
  /** The session's parent id (undefined for a root); throws when the session does not exist. */
  parentOf(sessionId: string): Promise<string | undefined>;
  create(input: { parentID: string; title: string }): Promise<string>;
  /**
   * Runs the question agent on the visible `text`, with the payload in `system` (only the
   * in-process model reads it); resolves when the run ends, with the run's error if any.
   */
  prompt(input: { sessionID: string; text: string; system: string }): Promise<{ error?: string }>;
  /** The session's messages with their parts (the v1 `session.messages` shape). */
  messages(sessionId: string): Promise<unknown>;
  /** Aborts the session's run and closes its open question dialogs (an abort alone leaves them open). */
  abort(sessionId: string): Promise<void>;
}

/** Only the question tool: the agent allows it, and this map keeps every other tool away. */
export const QUESTION_TOOLS: Record<string, boolean> = { '*': false, question: true };

/** QuestionSessions over the plugin's v1 client (path/body/query shapes). */
export function questionSessionsFromClient(client: PluginInput['client'], directory: string): QuestionSessions {
  const { session } = client;
  const query = { directory };
  return {
    async questionModelListed() {
      // Unknown when the list cannot be read: the asker tries the dialog anyway and its start timeout reports breakage.
      const res = await client.config.providers({ query }).catch(() => undefined);
      const providers = res?.data?.providers;
      if (!Array.isArray(providers)) return undefined;
      const provider = providers.find((p) => p.id === QUESTION_PROVIDER_ID);
      return Boolean(provider?.models && QUESTION_MODEL_ID in provider.models);
    },
    async parentOf(sessionId) {
      const res = await session.get({ path: { id: sessionId }, query });
      if (!res.data?.id) throw new Error(`Expected session ${sessionId} to exist: ${openCodeErrorText(res.error, 'no response')}`);
      return res.data.parentID || undefined;
    },
    async create({ parentID, title }) {
      const res = await session.create({ body: { parentID, title }, query });
      if (!res.data?.id) throw new Error(`OpenCode refused to create a question session: ${openCodeErrorText(res.error, 'no response')}`);
      return res.data.id;
    },
    async prompt({ sessionID, text, system }) {
      const res = await session.prompt({
        path: { id: sessionID },
        query,
        body: { agent: QUESTION_AGENT_ID, model: { ...QUESTION_MODEL }, system, tools: QUESTION_TOOLS, parts: [{ type: 'text', text }] },
      });
      const info = res.data?.info as { error?: unknown } | undefined;
      if (!info) return { error: openCodeErrorText(res.error, 'no response') };
      return info.error ? { error: openCodeErrorText(info.error, 'no response') } : {};
    },
    async messages(sessionId) {
      const res = await session.messages({ path: { id: sessionId }, query });
      if (!res.data) throw new Error(`Expected the messages of session ${sessionId}: ${openCodeErrorText(res.error, 'no response')}`);
      return res.data;
    },
    async abort(sessionId) {
      // Abort first so no new question can appear, then close what the run left open.
      await session.abort({ path: { id: sessionId }, query });
      await rejectOpenQuestions(client, directory, sessionId);
    },
  };
}
