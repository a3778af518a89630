import { z } from 'zod';

/** The longest header the question dialog shows as a tab label. */
export const HITL_HEADER_MAX_LENGTH = 30;

export const HitlOptionSchema = z.object({
  label: z.string().min(1),
  description: z.string().optional(),
});

/** One question for the human (docs/design.md, "Questions"); the emitter provides every display detail. */
export const HitlQuestionSchema = z.object({
  header: z
    .string()
    .min(1)
    .max(HITL_HEADER_MAX_LENGTH, `expected at most ${HITL_HEADER_MAX_LENGTH} characters`)
    .describe(`Short tab label, at most ${HITL_HEADER_MAX_LENGTH} characters`),
  question: z.string().min(1).describe('The full question text'),
  options: z.array(HitlOptionSchema),
  multiple: z.boolean().optional().describe('Allow selecting more than one option'),
  custom: z.boolean().optional().describe('Allow a free-form answer'),
});

export type HitlOption = z.infer<typeof HitlOptionSchema>;
export type HitlQuestion = z.infer<typeof HitlQuestionSchema>;
