import { z } from 'zod';
import { SPECIALIST_AGENTS } from '../schemas/specialist-agents.js';
import { READ_ONLY_SESSION_PERMISSIONS } from '../agents/permissions.js';
import { readOnlyAgentId } from '../agents/roles.js';
import type { Orca } from '../composition-root.js';
import { defineTool } from './define-tool.js';
import type { Usage } from '../machines/usage.js';
import { isPlanId } from '../persistence/plan-id.js';
import { errorMessage } from '../errors.js';
import { PromptAbortedError } from '../opencode/prompt-aborted-error.js';

const SESSION_ID = /^ses_[A-Za-z0-9]+$/;

export function askSpecialistTool(orca: Pick<Orca, 'sessions' | 'host' | 'recordTurn' | 'log'>) {
  return defineTool({
    name: 'orca_ask_specialist',
    description:
      'Ask a specialist a read-only question (it cannot edit files or run commands in this session). ' +
      'Returns its answer and a session_id; pass session_id to continue the same conversation.',
    args: {
      agent_id: z.enum(SPECIALIST_AGENTS).describe('The specialist to ask.'),
      question: z.string().regex(/\S/).describe('The question, with the context the specialist needs.'),
      session_id: z.string().regex(SESSION_ID).optional().describe('Continue an earlier conversation returned by this tool.'),
    },
    expected: {
      agent_id: `one of ${SPECIALIST_AGENTS.map((a) => `"${a}"`).join(', ')}`,
      question: 'a non-empty string: the question, with the context the specialist needs',
      session_id: 'the session_id ("ses_…") an earlier orca_ask_specialist call returned',
    },
    async execute(args, ctx) {
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
      const agent = readOnlyAgentId(args.agent_id);
      let reply: Awaited<ReturnType<typeof orca.sessions.prompt>>;
      try {
        reply = await orca.sessions.prompt({ sessionID, agent, text: args.question, signal: ctx.abort });
      } catch (error) {
        // Stopped by Esc before it answered: what its model calls spent still counts.
        if (error instanceof PromptAbortedError) await recordAsk(orca, ctx.sessionID, { agent, session_id: sessionID, usage: error.usage });
        throw error;
      }
      await recordAsk(orca, ctx.sessionID, { agent, session_id: sessionID, usage: reply.usage });
      return JSON.stringify({ agent_id: args.agent_id, session_id: sessionID, answer: reply.text, ...(reply.error ? { error: reply.error } : {}) }, null, 2);
    },
  });
}

/**
 * A read-only ask is a turn Orca started: it goes to the journal and the history, and into the
 * sums of the plan (and step) whose session asked, read from that session's metadata.
 */
async function recordAsk(orca: Pick<Orca, 'sessions' | 'host' | 'recordTurn' | 'log'>, callerId: string, turn: { agent: string; session_id: string; usage: Usage }) {
  let owner: { plan_id?: unknown; step_id?: unknown } | undefined;
  try {
    owner = ((await orca.sessions.get(callerId))?.metadata as { orca?: { plan_id?: unknown; step_id?: unknown } } | undefined)?.orca;
  } catch (error) {
    orca.log('warn', `the usage of a read-only ask in ${turn.session_id} is not counted in a plan: its caller ${callerId} could not be read (${errorMessage(error)})`);
  }
  const planId = typeof owner?.plan_id === 'string' && isPlanId(owner.plan_id) ? owner.plan_id : undefined;
  const stepId = typeof owner?.step_id === 'string' ? owner.step_id : undefined;
  orca.recordTurn({ ...(planId ? { plan_id: planId } : {}), ...(stepId ? { step_id: stepId } : {}), role: 'ask', correction: false, ...turn });
  if (planId && orca.host.isLive(planId)) orca.host.send(planId, { type: 'usage.recorded', ...(stepId ? { stepId, role: 'ask' as const } : {}), usage: turn.usage });
}

/** Only a session this tool created for the same agent may be continued: never a step's working session. */
async function checkAskSession(orca: Pick<Orca, 'sessions'>, sessionId: string, agentId: string) {
  const session = await orca.sessions.get(sessionId);
  const meta = (session?.metadata as { orca?: { role?: string; agent?: string } } | undefined)?.orca;
  if (meta?.role !== 'ask_specialist' || meta.agent !== agentId) {
    throw new Error(
      `session_id ${sessionId} is not a read-only orca_ask_specialist session with ${agentId}: expected the session_id an earlier orca_ask_specialist call to ${agentId} returned.`,
    );
  }
}
