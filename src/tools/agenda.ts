import { tool, type ToolContext, type ToolResult } from '@opencode-ai/plugin';
import { z } from 'zod';
import { AGENDA_TOOL, isSpecialist } from '../agents/roles.js';
import { RefusedError } from '../request-errors.js';
import { quote } from '../text/quote.js';
import { agendaCancelOp } from './agenda-cancel.js';
import { agendaCreateOp } from './agenda-create.js';
import { agendaEmitOp } from './agenda-emit.js';
import { agendaEventsOp } from './agenda-events.js';
import { agendaListOp } from './agenda-list.js';
import { agendaPauseOp } from './agenda-pause.js';
import { agendaToolError, type AgendaOp, type AgendaOrca } from './agenda-shared.js';
import { parseToolArguments } from './define-tool.js';
import { InvalidToolArgumentsError } from './invalid-tool-arguments-error.js';
import { toolError } from './tool-error.js';
import type { Orca } from '../composition-root.js';

/** Seed 002's six agenda tools, as the operations of one tool. No operation resumes a paused agenda: a human does. */
export const AGENDA_OPS = ['create', 'list', 'cancel', 'emit', 'events', 'pause'] as const;
export type AgendaOpName = (typeof AGENDA_OPS)[number];

/** What one of Orca's specialists may do with the tool when a user grants it: announce and look, never schedule. */
export const SPECIALIST_OPS: readonly AgendaOpName[] = ['emit', 'list'];

/**
 * Sent with every request of the agents that have the tool (the planner by default): short, since
 * each character is paid on each of them (docs/development.md, W1). The usual triggers and actions
 * are named here; a bad call reads back every shape (TRIGGER_EXPECTED, ACTION_EXPECTED), and the
 * result of a create says what to tell the user.
 */
export const AGENDA_DESCRIPTION =
  'Work the user wants later, recurring or on events. op: create{trigger,action,reason}|list|cancel{agendaId}|emit{kind,message}|' +
  'events{kind?}|pause. trigger: {type:time,executeAt}|{type:cron,expression,timezone?}|{type:event,eventKind} (e.g. ' +
  'plan.completed:plan_...). action: {type:plan,message} (a new plan, for approval)|{type:resume,plan_id}|{type:command,command}|' +
  '{type:emit,kind,message}.';

/**
 * What OpenCode sends the model as the tool's parameters: every argument of any operation, without
 * words (the description has them). OpenCode does not check a plugin tool's arguments against it
 * (NOTES-opencode.md): the tool parses each operation's own, strictly.
 */
const object = () => z.unknown().meta({ type: 'object' }).optional();
const ADVERTISED = {
  op: z.string(),
  trigger: object(),
  action: object(),
  reason: z.string().optional(),
  agendaId: z.string().optional(),
  kind: z.string().optional(),
  message: z.string().optional(),
};

const OPS_EXPECTED = 'one of create {trigger, action, reason}, list, cancel {agendaId, reason?}, emit {kind, message}, events {kind?, limit?}, pause';

/**
 * The agenda (seed 002) as one tool whose `op` says what to do: one definition on each request
 * instead of six (issue 35). Items belong to the user's session (the root of the caller's tree).
 * A specialist of Orca's (given the tool by the user's permission) may only emit and list.
 */
export function agendaTool(orca: AgendaOrca & Pick<Orca, 'directory'>) {
  const ops: Record<AgendaOpName, AgendaOp> = {
    create: agendaCreateOp(orca) as unknown as AgendaOp,
    list: agendaListOp(orca) as unknown as AgendaOp,
    cancel: agendaCancelOp(orca) as unknown as AgendaOp,
    emit: agendaEmitOp(orca) as unknown as AgendaOp,
    events: agendaEventsOp(orca) as unknown as AgendaOp,
    pause: agendaPauseOp(orca) as unknown as AgendaOp,
  };
  return tool({
    description: AGENDA_DESCRIPTION,
    args: ADVERTISED,
    async execute(raw: unknown, ctx: ToolContext): Promise<ToolResult> {
      const given = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
      const op = given?.op;
      if (typeof op !== 'string' || !(AGENDA_OPS as readonly string[]).includes(op)) {
        const problem = given ? `\`op\` must be ${OPS_EXPECTED}, got ${'op' in given ? quote(op) : 'nothing'}` : `expected the arguments to be an object with \`op\`, got ${quote(raw)}`;
        return toolError(new InvalidToolArgumentsError(AGENDA_TOOL, [problem], { op: OPS_EXPECTED }));
      }
      const name = op as AgendaOpName;
      if (isSpecialist(ctx.agent) && !SPECIALIST_OPS.includes(name)) {
        return toolError(new RefusedError(`agenda op ${name} is the planner's: ${ctx.agent} may only ${SPECIALIST_OPS.join(' and ')}. Nothing was done.`));
      }
      const spec = ops[name];
      const { op: _op, ...rest } = given!;
      const parsed = parseToolArguments({ name: `${AGENDA_TOOL} op ${name}`, args: spec.args, expected: spec.expected }, rest);
      if (!parsed.success) return toolError(parsed.error);
      try {
        return await spec.run(parsed.data, ctx);
      } catch (error) {
        return agendaToolError(error);
      }
    },
  });
}
