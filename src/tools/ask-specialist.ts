import { tool } from '@opencode-ai/plugin';
import { SPECIALIST_AGENTS } from '../protocol/specialist-agents.js';
import { READ_ONLY_SESSION_PERMISSIONS } from '../agents/permissions.js';
import { readOnlyAgentId } from '../agents/roles.js';
import type { Orca } from '../orca.js';
import { toolError } from './tool-error.js';

const SESSION_ID = /^ses_[A-Za-z0-9]+$/;

export function askSpecialistTool(orca: Orca) {
  return tool({
    description:
      'Ask a specialist a read-only question (it cannot edit files or run commands in this session). ' +
      'Returns its answer and a session_id; pass session_id to continue the same conversation.',
    args: {
      agent_id: tool.schema.enum(SPECIALIST_AGENTS).describe('The specialist to ask.'),
      question: tool.schema.string().min(1).describe('The question, with the context the specialist needs.'),
      session_id: tool.schema.string().optional().describe('Continue an earlier conversation returned by this tool.'),
    },
    async execute(args, ctx) {
      try {
        if (args.session_id !== undefined) await checkAskSession(orca, args.session_id, args.agent_id);
        const sessionID =
          args.session_id ??
          (
            await orca.sessions.create({
              parentID: ctx.sessionID,
              title: `Orca ask ${args.agent_id} (read-only)`,
              permission: READ_ONLY_SESSION_PERMISSIONS,
              metadata: { orca: { role: 'ask_specialist', agent: args.agent_id } },
            })
          ).id;
        // The hidden read-only twin: OpenCode enforces its permissions whatever the prompt passes.
        // No `tools` map here: in 1.18 it would replace the session's read-only ruleset.
        const reply = await orca.sessions.prompt({ sessionID, agent: readOnlyAgentId(args.agent_id), text: args.question, signal: ctx.abort });
        return JSON.stringify({ agent_id: args.agent_id, session_id: sessionID, answer: reply.text, ...(reply.error ? { error: reply.error } : {}) }, null, 2);
      } catch (error) {
        return toolError(error);
      }
    },
  });
}

/** Only a session this tool created for the same agent may be continued: never a step's working session. */
async function checkAskSession(orca: Orca, sessionId: string, agentId: string) {
  const expected = `expected the session_id an earlier orca_ask_specialist call to ${agentId} returned`;
  if (!SESSION_ID.test(sessionId)) throw new Error(`Invalid session_id ${JSON.stringify(sessionId)}: ${expected}.`);
  const session = await orca.sessions.get(sessionId);
  const meta = (session?.metadata as { orca?: { role?: string; agent?: string } } | undefined)?.orca;
  if (meta?.role !== 'ask_specialist' || meta.agent !== agentId) {
    throw new Error(`session_id ${sessionId} is not a read-only orca_ask_specialist session with ${agentId}: ${expected}.`);
  }
}
