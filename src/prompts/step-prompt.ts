import type { ThreadedContext } from '../machines/types.js';
import { SpecialistOutputSchema, specialistOutputJsonSchema } from '../schemas/specialist-output.js';
import { besideStepsSection, laterStepsSection } from './later-steps.js';
import { failingBeforeSection } from './base-failures.js';
import { keptAttempts } from '../machines/step-records.js';
import { keptChangesText, previousAttemptsList } from './previous-attempts.js';
import { withProtocol, type OutputProtocol } from '../protocol/output-protocol.js';
import { outputFormat } from '../protocol/protocol-turn.js';
import { turnHeader, turnStart } from './turn-header.js';

/**
 * The whole prompt a specialist gets for one step (docs/design.md, "Context threading"). It is
 * built only from the threaded context, so its size depends on the step's dependencies, not on how
 * long the plan has been running. What to answer is the output protocol section the turn appends.
 */
export function stepPrompt(thread: ThreadedContext): string {
  const { step } = thread;
  const sections = [
    // In a worktree the specialist has none of the plugin's tools (its instance there is passive).
    `# Plan ${thread.plan_id}\nGoal: ${thread.goal}${thread.workspace === 'worktree' ? '' : '\n(Call orca_describe_plan with this plan_id for assumptions, risks and other steps.)'}`,
    `# Your step: ${step.id} (${step.agent})\n${step.description}${step.success ? `\nDone when: ${step.success}` : ''}`,
  ];
  if (thread.dependencies.length > 0) {
    sections.push(
      `# Results of the steps this one depends on\n${thread.dependencies
        .map((d) => {
          const lines = [`## ${d.id} (${d.agent})`, `Summary: ${d.output.summary}`];
          if (d.output.artifacts.length) lines.push(`Artifacts: ${d.output.artifacts.join(', ')}`);
          if (d.output.key_findings.length) lines.push(`Key findings:\n${d.output.key_findings.map((k) => `- ${k}`).join('\n')}`);
          if (d.changed_after?.length) {
            const who = d.changed_after.map((c) => `${c.id} (${c.agent}) changed ${c.files.join(', ')}`).join('; ');
            lines.push(`Since then ${who} on top of this step's change: where their results differ, trust the later step and the files.`);
          }
          return lines.join('\n');
        })
        .join('\n\n')}`,
    );
  }
  if (thread.relevant_files.length > 0) sections.push(`# Relevant files\n${thread.relevant_files.map((f) => `- ${f}`).join('\n')}`);
  const failing = failingBeforeSection(thread.failing_before, 'step');
  if (failing) sections.push(failing);
  const later = laterStepsSection(thread);
  if (later) sections.push(later);
  const beside = besideStepsSection(thread);
  if (beside) sections.push(beside);
  if (thread.previous_attempts.length > 0) {
    const kept = keptChangesText(keptAttempts(thread.previous_attempts), thread.workspace === 'worktree', 'specialist');
    sections.push(`# Previous attempts at this step failed\n${previousAttemptsList(thread.previous_attempts, 'specialist')}${kept ? `\n${kept}` : ''}`);
  }
  return sections.join('\n\n');
}

/**
 * The whole first prompt of a specialist's step turn as the turn runner sends it: the header line,
 * the step prompt and the output protocol section (the plan viewer sizes it from the plan file).
 */
export function specialistTurnPrompt(thread: ThreadedContext, attempt: number, protocol: OutputProtocol = 'text'): string {
  const header = turnHeader({ planId: thread.plan_id, agent: thread.step.agent, stepId: thread.step.id, attempt });
  return withProtocol(turnStart(header, stepPrompt(thread)), protocol, outputFormat(SpecialistOutputSchema, specialistOutputJsonSchema()));
}
