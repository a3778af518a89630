// One table over channels × gates: every channel (dialog, permission prompt, slash command, CLI,
// auto policy) offers exactly the options the machine takes at that gate, with the same validation,
// and sends the same event for the same choice. Gates come from real plans in real snapshots.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postGateDecision } from '../../src/decisions/post-decision.js';
import type { AutoPolicy } from '../../src/config/options.js';
import { autoChoice } from '../../src/decisions/auto-policy.js';
import { runGateCommand, type GateCommandDeps } from '../../src/hitl/commands.js';
import { GATE_COMMANDS, type GateCommand } from '../../src/decisions/gate-commands.js';
import { planFollowers } from '../../src/notices/plan-notes.js';
import { resolveGate, type GateResolverDeps } from '../../src/hitl/resolve.js';
import { openGates, type Gate } from '../../src/machines/gates.js';
import type { PlanHost } from '../../src/host/plan-host.js';
import { approvalPlan, budgetPlan, failedStepPlan, interruptedPlan, mergePlan, tempProject, type Project } from '../cli/fixtures.js';

/** What the dialog and the slash commands use of Orca. */
type ChannelDeps = GateResolverDeps & GateCommandDeps;

let project: Project;
beforeEach(() => (project = tempProject()));
afterEach(() => project.remove());

type HostOptions = Parameters<Project['host']>[0];
const GATES: Record<string, { make: (host: PlanHost) => string; host?: HostOptions }> = {
  approval: { make: approvalPlan },
  'a failed step': { make: (h) => failedStepPlan(h, 1), host: { maxAttempts: 3 } },
  'a failed step at the attempt limit': { make: (h) => failedStepPlan(h, 2), host: { maxAttempts: 2 } },
  'a failed step at an open breaker': { make: (h) => failedStepPlan(h, 2), host: { maxAttempts: 5, policy: { same_error_limit: 2 } } },
  'the dispatch cap': { make: budgetPlan, host: { policy: { max_dispatches: 1 } } },
  'an interrupted step': { make: interruptedPlan },
  'a step whose changes did not apply': { make: mergePlan, host: { policy: { workspace: 'worktree' } } },
  'a step whose changes did not apply, at the attempt limit': { make: mergePlan, host: { maxAttempts: 1, policy: { workspace: 'worktree' } } },
};

const OPTIONS = ['Approve', 'Request Changes', 'Reject', 'Retry', 'Replan', 'Continue', 'Re-run', 'Mark done', 'Run again on top', 'Resolved by hand', 'Stop'] as const;
const COMMAND_OF = Object.fromEntries(Object.entries(GATE_COMMANDS).map(([name, spec]) => [spec.option, name])) as Record<string, GateCommand>;
const CLI_CHOICE = (option: string) => COMMAND_OF[option]!.replace(/^orca-/, '');
/** The auto policy value that asks for an option at a kind of gate, if the policy can express it. */
const POLICY_FOR: Record<string, (kind: Gate['kind']) => AutoPolicy | null> = {
  Approve: () => ({ approval: 'approve' }),
  Reject: () => ({ approval: 'reject' }),
  Retry: () => ({ deviation: 'retry' }),
  Replan: () => ({ deviation: 'replan' }),
  Continue: () => ({ budget: 'continue' }),
  'Re-run': () => ({ resume: 'rerun' }),
  'Run again on top': () => ({ merge: 'rerun' }),
  // No policy value asks for Resolved by hand: only a person can have resolved it.
  'Resolved by hand': () => null,
  Stop: (kind) => (kind === 'budget' ? { budget: 'stop' } : kind === 'resume' ? { resume: 'stop' } : kind === 'merge' ? { merge: 'stop' } : { deviation: 'stop' }),
};
const TEXT = 'because the human says so';

function waiting(name: string) {
  const spec = GATES[name]!;
  const host = project.host(spec.host);
  const planId = spec.make(host);
  const gate = openGates(host.open(planId).getSnapshot())[0]!;
  const orca = { host, options: {}, log: () => {}, history: { stats: () => null, record: () => {} }, turnFollowers: planFollowers(), notes: { post: () => {} } } as unknown as ChannelDeps;
  return { host, planId, gate, orca };
}

/** The choice as each channel takes it: the event it would send, or null when it refuses. */
const CHANNELS = {
  async dialog({ gate, orca }: ReturnType<typeof waiting>, option: string, text?: string) {
    const asker = { ask: async () => ({ kind: 'answered' as const, answers: [[option], [text ?? 'No guidance']] }) };
    const answer = await resolveGate({ ...orca, asker } as unknown as ChannelDeps, gate, { sessionID: 'ses_x', ask: async () => {} }, new AbortController().signal);
    return 'event' in answer ? answer.event : null;
  },
  async command({ orca, host, planId }: ReturnType<typeof waiting>, option: string, text?: string) {
    const before = host.open(planId).getSnapshot().context.decisions.length;
    try {
      runGateCommand(orca, COMMAND_OF[option]!, `${planId}${text ? ` ${text}` : ''}`, 'ses_x');
    } catch {
      return null;
    }
    const decision = host.open(planId).getSnapshot().context.decisions[before];
    return decision ? { option: decision.option, text: decision.text } : null;
  },
  async cli({ planId }: ReturnType<typeof waiting>, option: string, text?: string) {
    try {
      return postGateDecision(project.dir, { planId, choice: CLI_CHOICE(option), ...(text ? { text } : {}) }, new Date()).event;
    } catch {
      return null;
    }
  },
};
/** The event's meaning, whatever channel sent it. */
const meaning = (e: { type?: string; option?: string; text?: string; stepId?: string } | null) =>
  e === null ? null : { kind: e.type ?? e.option, text: e.text };

describe.each(Object.keys(GATES))('at %s', (name) => {
  it.each(OPTIONS)('should take or refuse %s alike on every channel, as the machine does', async (option) => {
    const offered = waiting(name).gate.options as readonly string[];
    const results: Record<string, unknown> = {};
    for (const [channel, take] of Object.entries(CHANNELS)) {
      const fixture = waiting(name); // a fresh plan each time: a channel that takes the choice changes it
      results[channel] = await take(fixture, option, TEXT);
    }
    const accepted = Object.fromEntries(Object.entries(results).map(([channel, e]) => [channel, e !== null]));
    const expected = offered.includes(option);
    expect(accepted).toEqual({ dialog: expected, command: expected, cli: expected });
    // The same choice is the same event: the dialog and the CLI send it; the command recorded it.
    if (expected) {
      expect(meaning(results.dialog as never)).toEqual(meaning(results.cli as never));
      expect((results.command as { option: string }).option).toBe(option);
    }
  });

  it('should let the auto policy choose exactly the options the machine takes from it', () => {
    const { gate } = waiting(name);
    for (const option of Object.keys(POLICY_FOR)) {
      const policy = POLICY_FOR[option]!(gate.kind);
      const chosen = policy ? autoChoice(gate, policy)?.option : undefined;
      if ((gate.autoOptions as readonly string[]).includes(option)) expect(chosen, option).toBe(option);
      else expect(chosen, option).not.toBe(option);
    }
  });

  it('should map every permission-prompt answer to an offered option or leave the plan waiting', async () => {
    for (const reply of ['allow', 'reject', 'reject with a message'] as const) {
      const fixture = waiting(name);
      const ask = async () => {
        if (reply === 'allow') return;
        throw Object.assign(new Error(reply === 'reject' ? 'The user rejected permission' : `The user rejected permission with the following feedback: ${TEXT}`), {
          name: reply === 'reject' ? 'PermissionRejectedError' : 'PermissionCorrectedError',
          ...(reply === 'reject' ? {} : { feedback: TEXT }),
        });
      };
      const orca = { ...fixture.orca, asker: { ask: async () => ({ kind: 'unavailable' as const, reason: 'test' }) } } as unknown as ChannelDeps;
      const answer = await resolveGate(orca, fixture.gate, { sessionID: 'ses_x', ask }, new AbortController().signal);
      if (!('event' in answer)) continue;
      const event = answer.event as { type: string };
      expect(fixture.host.open(fixture.planId).getSnapshot().can(event as never), `${reply} → ${event.type}`).toBe(true);
    }
  });
});

describe('choices that need the human’s words', () => {
  it.each([
    ['approval', 'Request Changes'],
    ['an interrupted step', 'Mark done'],
  ])('at %s, %s without text is refused on every channel', async (name, option) => {
    for (const [channel, take] of Object.entries(CHANNELS)) {
      expect(await take(waiting(name), option), channel).toBeNull();
    }
  });
});
