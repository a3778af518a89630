import type { VerifyPlanInput } from '../machines/ports.js';
import { failingBeforeSection } from './base-failures.js';

/**
 * What the verifying turn is told (docs/design.md, "Isolation and merge"): the plan's goal, its own
 * verification list, and what each step did. Who it is (every step landed, check the whole in the
 * user's project, change nothing) and how to answer are its agent's prompt (the hidden `verifier`,
 * src/agents/prompts/verifier.ts), the format the output protocol section the turn appends.
 */
export function verifyPrompt(input: Pick<VerifyPlanInput, 'planId' | 'goal' | 'verification' | 'steps' | 'failing_before'>): string {
  const failing = failingBeforeSection(input.failing_before, 'verification');
  return [
    `# Verification of plan ${input.planId}\nGoal: ${input.goal}`,
    `# The plan's verification list\n${input.verification.map((item) => `- ${item}`).join('\n')}`,
    '# What each step did\n' + input.steps.map((s) => [`- ${s.id} (${s.agent}): ${s.summary || '(no summary)'}`, ...(s.key_findings ?? []).map((k) => `  - found: ${k}`)].join('\n')).join('\n'),
    ...(failing ? [failing] : []),
  ].join('\n\n');
}
