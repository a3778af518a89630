import type { AutoPolicy } from '../config/options.js';
import type { Gate } from '../machines/gates.js';

/**
 * The explicit auto policy (channel 4): only what the user configured, and every choice carries
 * a text that says it was automatic, so the plan's decision log shows it. It chooses only among
 * the gate's autoOptions (what the machine takes from it): at an open circuit breaker that is
 * nothing, and the gate waits for a human (see autoPause).
 */
export function autoChoice(gate: Gate, policy: AutoPolicy | undefined): { option: string; text: string; answers?: string[][] } | null {
  if (!policy) return null;
  switch (gate.kind) {
    case 'approval':
      if (!policy.approval) return null;
      return { option: policy.approval === 'approve' ? 'Approve' : 'Reject', text: `auto policy hitl.auto.approval=${policy.approval}` };
    case 'question':
      if (policy.questions !== 'first_option') return null;
      return {
        option: 'answers',
        answers: gate.questions.map((q) => [q.options[0]?.label ?? '']),
        text: 'auto policy hitl.auto.questions=first_option',
      };
    case 'deviation': {
      // The machine offers the auto policy nothing at an open breaker: a human decides (autoPause says so).
      if (!policy.deviation || gate.autoOptions.length === 0) return null;
      const wanted = ({ retry: 'Retry', replan: 'Replan', stop: 'Stop' } as const)[policy.deviation];
      if (gate.autoOptions.includes(wanted)) return { option: wanted, text: `auto policy hitl.auto.deviation=${policy.deviation}` };
      if (!gate.autoOptions.includes('Stop')) return null;
      return {
        option: 'Stop',
        text: `auto policy hitl.auto.deviation=${policy.deviation}: ${wanted} is no longer offered after ${gate.failures} failed attempts, so the plan stops`,
      };
    }
    case 'resume': {
      if (!policy.resume) return null;
      const wanted = policy.resume === 'rerun' ? 'Re-run' : 'Stop';
      if (!gate.autoOptions.includes(wanted)) return null;
      return { option: wanted, text: `auto policy hitl.auto.resume=${policy.resume}` };
    }
    case 'merge': {
      // Resolved by hand is never the policy's (only a person can have resolved it): rerun or stop.
      if (!policy.merge) return null;
      const wanted = policy.merge === 'rerun' ? 'Run again on top' : 'Stop';
      if (gate.autoOptions.includes(wanted)) return { option: wanted, text: `auto policy hitl.auto.merge=${policy.merge}` };
      // Run again on top counts as a retry: past the attempt limit (or the budget) the plan stops, as at a failed step.
      if (!gate.autoOptions.includes('Stop')) return null;
      return {
        option: 'Stop',
        text: `auto policy hitl.auto.merge=${policy.merge}: ${wanted} is no longer offered at attempt ${gate.attempt} (the attempt limit or the budget is reached), so the plan stops`,
      };
    }
    case 'budget':
      if (!policy.budget || !gate.autoOptions.includes(policy.budget === 'continue' ? 'Continue' : 'Stop')) return null;
      return { option: policy.budget === 'continue' ? 'Continue' : 'Stop', text: `auto policy hitl.auto.budget=${policy.budget}` };
    case 'verification': {
      if (!policy.verification) return null;
      const wanted = ({ replan: 'Replan', accept: 'Accept as is', stop: 'Stop' } as const)[policy.verification];
      if (!gate.autoOptions.includes(wanted)) return null;
      return { option: wanted, text: `auto policy hitl.auto.verification=${policy.verification}` };
    }
  }
}

/**
 * Why a configured auto policy does not answer this gate, or null: at an open breaker a human
 * decides (an LLM or a policy never retries past it). The caller logs it and asks a human.
 */
export function autoPause(gate: Gate, policy: AutoPolicy | undefined): string | null {
  if (gate.kind !== 'deviation' || gate.autoOptions.length > 0 || !policy?.deviation) return null;
  return `hitl.auto.deviation=${policy.deviation} not applied to step ${gate.stepId}${gate.breaker ? ` (${gate.breaker})` : ''}`;
}
