import { tool } from '@opencode-ai/plugin';
import type { Orca } from '../orca.js';
import { listSummaries } from '../persistence/plan-index.js';
import { renderPlanList } from './render.js';
import { toolError } from './tool-error.js';

export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 200;

const expected = {
  limit: `an integer from 1 to ${LIST_LIMIT_MAX}`,
  offset: 'an integer of 0 or more',
} as const;

const listArgs = {
  limit: tool.schema
    .number()
    .int()
    .min(1)
    .max(LIST_LIMIT_MAX)
    .optional()
    .describe(`How many plans to return, newest first: ${expected.limit} (default ${LIST_LIMIT_DEFAULT}).`),
  offset: tool.schema
    .number()
    .int()
    .min(0)
    .optional()
    .describe('How many of the newest plans to skip (default 0); a reply with more plans says which offset comes next.'),
};

export class InvalidListArgsError extends Error {
  override name = 'InvalidListArgsError';
}

export function listPlansTool(orca: Orca) {
  return tool({
    description:
      `List the plans of this project, newest first, ${LIST_LIMIT_DEFAULT} at a time: plan_id, goal, status, step progress ` +
      'and updated time, with how many there are in all and the offset of the next page.',
    args: listArgs,
    async execute(args) {
      // Parsed here too: the defaults and the messages must not depend on who calls execute.
      const parsed = tool.schema.object(listArgs).safeParse(args ?? {});
      if (!parsed.success) return toolError(new InvalidListArgsError(explain(parsed.error.issues, args)));
      const { limit = LIST_LIMIT_DEFAULT, offset = 0 } = parsed.data;
      return JSON.stringify(renderPlanList(listSummaries(orca.host.index), { offset, limit }), null, 2);
    },
  });
}

/** "Expected `limit` to be an integer from 1 to 200 (got 0)." for each argument that is wrong. */
function explain(issues: Array<{ path: PropertyKey[] }>, args: unknown): string {
  const keys = new Set(issues.map((i) => i.path[0]));
  const given = (typeof args === 'object' && args !== null ? args : {}) as Record<string, unknown>;
  return [...keys]
    .map((key) =>
      key === 'limit' || key === 'offset'
        ? `Expected \`${key}\` to be ${expected[key]} (got ${JSON.stringify(given[key])}).`
        : `Expected the arguments to be an object with optional \`limit\` and \`offset\` (got ${JSON.stringify(args)}).`,
    )
    .join(' ');
}
