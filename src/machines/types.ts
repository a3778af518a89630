/** Plain data shared by the plan and step machines. Everything here is JSON: it lives in snapshots. */

import { SPECIALIST_AGENTS } from '../protocol/specialist-agents.js';

export const SPECIALISTS = SPECIALIST_AGENTS;
export type SpecialistId = (typeof SPECIALISTS)[number];

/** Seed 000's eight plan states, in lifecycle order. */
export const PLAN_STATUSES = [
  'drafting',
  'pending_approval',
  'changes_requested',
  'approved',
  'in_progress',
  'completed',
  'failed',
  'rejected',
] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export interface StepSpec {
  id: string;
  agent: SpecialistId;
  description: string;
  depends_on?: string[];
  files?: string[];
  success?: string;
}

export interface PlanProposal {
  goal: string;
  steps: StepSpec[];
  assumptions: string[];
  risks: string[];
  verification: string[];
  relevant_files?: string[];
}

export interface StepOutput {
  summary: string;
  artifacts: string[];
  key_findings: string[];
}

/** One failed attempt, with the guidance the human gave when choosing what to do next. */
export interface FailedAttempt {
  attempt: number;
  error: string;
  guidance?: string;
}

export type StepStatus = 'pending' | 'running' | 'awaiting_decision' | 'completed' | 'stopped';

export interface StepRecord extends StepSpec {
  status: StepStatus;
  /** Dispatches made so far (1 after the first dispatch). */
  attempts: number;
  failures: FailedAttempt[];
  session_id?: string;
  output?: StepOutput;
}

/** Where a human (or an explicit auto policy) answered a gate. */
export type DecisionChannel = 'question' | 'permission' | 'command' | 'cli' | 'auto' | 'tool';

export interface DecisionSource {
  channel: DecisionChannel;
  /** ISO time the decision was made (events carry it so the machines stay pure). */
  at: string;
}

export interface DecisionRecord extends DecisionSource {
  gate: 'approval' | 'deviation' | 'question';
  option: string;
  step_id?: string;
  text?: string;
}

/** What a specialist receives: the plan state, threaded. No transcripts. */
export interface ThreadedContext {
  plan_id: string;
  goal: string;
  step: StepSpec;
  dependencies: Array<{ id: string; agent: SpecialistId; output: StepOutput }>;
  relevant_files: string[];
  previous_attempts: FailedAttempt[];
}

export type SpecialistResult =
  | { type: 'success'; summary: string; artifacts: string[]; key_findings?: string[] }
  | { type: 'failure'; error: string; cause?: string };

export interface HitlQuestion {
  header: string;
  question: string;
  options: Array<{ label: string; description?: string }>;
  multiple?: boolean;
  custom?: boolean;
}

export type PlannerOutput =
  | { type: 'answer'; content: string }
  | { type: 'question'; questions: HitlQuestion[] }
  | ({ type: 'plan' } & PlanProposal);
