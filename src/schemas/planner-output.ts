import { z } from 'zod';
import { withExample } from './example.js';
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

export const PlannerAnswerSchema = withExample(
  z.object({
    type: z.literal('answer'),
    content: z.string().min(1),
  }),
  { type: 'answer', content: 'The answer, in markdown.' },
);

export const PlannerQuestionSchema = withExample(
  z.object({
    type: z.literal('question'),
    questions: z.array(HitlQuestionSchema).min(1),
  }),
  {
    type: 'question',
    questions: [
      {
        header: 'Auth method',
        question: 'Which sign-in method should the API use?',
        options: [
          { label: 'JWT', description: 'Stateless bearer tokens' },
          { label: 'Sessions', description: 'Server-side sessions' },
        ],
        multiple: false,
        custom: true,
      },
    ],
  },
);

export const PlanSchema = withExample(
  z
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
    }),
  {
    type: 'plan',
    goal: 'One sentence: what is true when the plan is done',
    steps: [
      {
        id: 'jwt-utils',
        agent: 'coder',
        description: 'Add generateToken and verifyToken to src/utils/jwt.ts using the jsonwebtoken package',
        depends_on: [],
        files: ['src/utils/jwt.ts'],
        success: 'Both functions exported; verifyToken rejects expired tokens',
      },
      {
        id: 'jwt-tests',
        agent: 'tester',
        description: 'Write unit tests for src/utils/jwt.ts: valid, expired and tampered tokens',
        depends_on: ['jwt-utils'],
        files: ['test/jwt.test.ts'],
        success: 'npm test passes, including the new tests',
      },
    ],
    assumptions: ['What you assumed without asking'],
    risks: ['What could go wrong and how the plan limits it'],
    verification: ['How the user can check the whole result'],
    relevant_files: ['Files every step should know about'],
  },
);

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
