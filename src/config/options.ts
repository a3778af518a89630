import { z } from 'zod';
import { formatIssues } from '../persistence/plan-file.js';
import { inspectOption } from '../inspect/settings.js';
import { AGENT_IDS } from '../agents/roles.js';

/**
 * Plugin options, from opencode.json: `"plugin": [["opencode-orca-statecharts", { ... }]]`.
 * Everything is optional; HITL auto decisions are off unless configured here.
 */
/** Per-agent settings (orca, planner, the specialists); the role's permissions are always enforced on top. */
const agentSettings = z.strictObject({
  model: z.string().regex(/^[^/\s]+\/\S+$/, 'expected "provider/model"').optional(),
  temperature: z.number().min(0).max(2).optional(),
  prompt: z.string().min(1).optional(),
  disable: z.boolean().optional(),
});

export const orcaOptions = z.strictObject({
  agents: z.partialRecord(z.enum(AGENT_IDS), agentSettings).optional(),
  concurrency: z.number().int().min(1).max(16).optional(),
  max_attempts: z.number().int().min(1).max(100).optional(),
  /** The Stately inspector on 127.0.0.1 (also ORCA_INSPECT=1, ORCA_INSPECT_PORT). Off by default. */
  inspect: inspectOption.optional(),
  hitl: z
    .strictObject({
      /** Decisions taken without a human, for headless runs (opencode run, CI). Each is logged in the plan. */
      auto: z
        .strictObject({
          approval: z.enum(['approve', 'reject']).optional(),
          deviation: z.enum(['retry', 'replan', 'stop']).optional(),
          questions: z.enum(['first_option']).optional(),
        })
        .optional(),
    })
    .optional(),
});

export type OrcaOptions = z.infer<typeof orcaOptions>;
export type AutoPolicy = NonNullable<NonNullable<OrcaOptions['hitl']>['auto']>;

export class OrcaConfigError extends Error {
  override name = 'OrcaConfigError';
}

export function parseOptions(raw: unknown): OrcaOptions {
  const parsed = orcaOptions.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new OrcaConfigError(`Invalid opencode-orca-statecharts plugin options: ${formatIssues(parsed.error)}`);
  }
  return parsed.data;
}
