import { z } from 'zod';

/** The specialists a plan step may be assigned to. */
export const SPECIALIST_AGENTS = [
  'coder',
  'tester',
  'reviewer',
  'researcher',
  'document-writer',
  'architect',
] as const;

export type SpecialistAgent = (typeof SPECIALIST_AGENTS)[number];

export const SpecialistAgentSchema = z.enum(SPECIALIST_AGENTS);
