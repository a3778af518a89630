import type { SessionsPort } from '../../src/opencode/sessions.js';
import { ONE_TURN } from './turns.js';

/**
 * A fake of our own sessions port (not of OpenCode): sessions are created with ids ses_1, ses_2, …,
 * every prompt is recorded and answered by `reply`: a string is the reply's text; anything else is
 * the answer itself, as structured output when the prompt asked for it (a json schema) and as
 * JSON text otherwise. Aborts are recorded, and `get` knows the sessions it created.
 */
export function fakeSessions(reply: (agent: string, text: string, n: number) => unknown) {
  const prompts: Array<{ sessionID: string; agent: string; text: string; structured: boolean }> = [];
  const created: Array<{ id: string; parentID?: string | null; title: string; metadata?: Record<string, unknown> }> = [];
  const aborted: string[] = [];
  const port: SessionsPort = {
    async create(input) {
      const id = `ses_${created.length + 1}`;
      created.push({ id, ...input });
      return { id };
    },
    async prompt({ sessionID, agent, text, jsonSchema }) {
      prompts.push({ sessionID, agent, text, structured: jsonSchema !== undefined });
      const out = reply(agent, text, prompts.filter((p) => p.agent === agent).length);
      if (typeof out === 'string') return { text: out, usage: ONE_TURN };
      return jsonSchema ? { structured: out, text: '', usage: ONE_TURN } : { text: `Done.\n${JSON.stringify(out)}`, usage: ONE_TURN };
    },
    abort: async (id) => void aborted.push(id),
    async get(id) {
      const session = created.find((s) => s.id === id);
      return session ? { id, ...(session.parentID ? { parentID: session.parentID } : {}), ...(session.metadata ? { metadata: session.metadata } : {}) } : null;
    },
    messages: async () => [],
    busy: async () => false,
    children: async () => [],
  };
  return { port, prompts, created, aborted };
}
