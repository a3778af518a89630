import { z } from 'zod';
import { HitlQuestionSchema } from './hitl-question.js';
import { toToolJsonSchema } from './json-schema.js';
import { findPlanGraphProblems } from './plan-graph.js';
import { SpecialistAgentSchema } from './specialist-agents.js';

/** Step ids are short and safe to use in file names and event payloads. */
export const PLAN_STEP_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export const PlanStepSchema = z.object({
  id: z
    .string()
    .regex(PLAN_STEP_ID_PATTERN, 'expected a short id: letters, digits, "_", "." or "-", at most 64 characters'),
  agent: SpecialistAgentSchema,
  description: z.string().min(1),
  depends_on: z.array(z.string()).optional().describe('Ids of the steps that must finish first'),
  files: z.array(z.string()).optional(),
  success: z.string().optional().describe('How to tell the step succeeded'),
  idempotent: z
    .boolean()
    .optional()
    .describe('True when running the step twice does no harm (e.g. it only reads, or rewrites a file whole): after a crash it re-runs without asking'),
});

export const PlannerAnswerSchema = z.object({
  type: z.literal('answer'),
  content: z.string().min(1),
});

export const PlannerQuestionSchema = z.object({
  type: z.literal('question'),
  questions: z.array(HitlQuestionSchema).min(1),
});

export const PlanSchema = z
  .object({
    type: z.literal('plan'),
    goal: z.string().min(1),
    steps: z.array(PlanStepSchema).min(1),
    assumptions: z.array(z.string()),
    risks: z.array(z.string()),
    verification: z.array(z.string()),
    relevant_files: z.array(z.string()).optional(),
  })
  .superRefine((plan, ctx) => {
    for (const problem of findPlanGraphProblems(plan.steps))
      ctx.addIssue({ code: 'custom', path: ['steps', ...problem.path], message: problem.message });
  });

export const PLANNER_OUTPUT_TYPES = ['answer', 'question', 'plan'] as const;

/** What the planner returns on every turn. */
export const PlannerOutputSchema = z.discriminatedUnion(
  'type',
  [PlannerAnswerSchema, PlannerQuestionSchema, PlanSchema],
  { error: (issue) => (issue.code === 'invalid_union' ? `expected one of ${PLANNER_OUTPUT_TYPES.join('|')}` : undefined) },
);

export type PlanStep = z.infer<typeof PlanStepSchema>;
export type PlannerAnswer = z.infer<typeof PlannerAnswerSchema>;
export type PlannerQuestion = z.infer<typeof PlannerQuestionSchema>;
export type Plan = z.infer<typeof PlanSchema>;
export type PlannerOutput = z.infer<typeof PlannerOutputSchema>;

/** JSON Schema for OpenCode's `format: {type: "json_schema", schema}`. */
export function plannerOutputJsonSchema(): Record<string, unknown> {
  return toToolJsonSchema(PlannerOutputSchema);
}
