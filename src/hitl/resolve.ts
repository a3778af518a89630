import type { ToolContext } from '@opencode-ai/plugin';
import type { PlanEvent } from '../machines/plan.machine.js';
import type { Orca } from '../orca.js';
import { autoChoice } from './auto-policy.js';
import { decisionEvent, type Gate } from './gates.js';

/**
 * Turn an open gate into an event through the first channel that can answer it. Today: the
 * explicit auto policy (off by default). No channel → null: the plan waits, persisted.
 */
export async function resolveGate(orca: Orca, gate: Gate, _ctx: ToolContext, _signal: AbortSignal): Promise<PlanEvent | null> {
  const auto = autoChoice(gate, orca.options.hitl?.auto);
  if (auto) {
    orca.log('info', `plan ${gate.planId}: ${gate.kind} gate answered "${auto.option}" by ${auto.text}`);
    return decisionEvent(gate, auto, { channel: 'auto', at: new Date().toISOString() });
  }
  return null;
}
