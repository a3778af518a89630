import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PlanFollower } from '../../src/host/follow.js';
import { CommandError } from '../../src/hitl/commands.js';
import type { AskInput, AskOutcome } from '../../src/hitl/native-question/asker.js';
import { runPlanCommand, type PlanCommandDeps } from '../../src/hitl/plan-commands.js';
import { planFollowers } from '../../src/notices/plan-notes.js';
import { approvalPlan, runningPlan, tempProject, type Project } from '../cli/fixtures.js';

let project: Project;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.remove());

/** The parts of Orca the commands use, with a dialog that answers from a script and notes kept in order. */
function orcaWith(replies: AskOutcome[] = []) {
  const host = project.host();
  const said: Array<[string, string]> = [];
  const asked: AskInput[] = [];
  const logs: string[] = [];
  const log = (_level: string, message: string) => void logs.push(message);
  const follower = new PlanFollower(host, () => null, log);
  const turnFollowers = planFollowers();
  const orca: PlanCommandDeps = {
    host,
    follower,
    turnFollowers,
    options: {},
    history: { stats: () => null },
    log,
    asker: {
      ask: async (input) => {
        asked.push(input);
        return replies.shift() ?? new Promise<never>(() => {}); // a dialog nobody answers
      },
    },
    notes: { say: async (sessionId, text) => (said.push([sessionId, text]), true), post: (sessionId, text) => void said.push([sessionId, text]) },
  };
  return { orca, host, follower, turnFollowers, said, asked, logs };
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('/orca-pause and /orca-resume', () => {
  it('should pause the running plan of this session where it is, and resume it from its saved state, followed in the session', async () => {
    const { orca, host, follower, turnFollowers } = orcaWith();
    const planId = runningPlan(host, 'ses_me');
    orca.follower.follow(planId);
    expect(await runPlanCommand(orca, 'orca-pause', '', 'ses_me')).toBe(
      `Orca: plan ${planId} is paused and saved: 0 of 2 steps done, s1 (coder) was running. Nothing runs it until it is resumed: ` +
        `type /orca-resume ${planId} (or ask Orca to continue plan ${planId}) and it goes on from its saved state. orca show ${planId} shows where it stopped.`,
    );
    expect(host.isLive(planId)).toBe(false);
    expect(follower.isFollowing(planId)).toBe(false);
    expect(project.store.load(planId).steps[0]!.status).toBe('running'); // saved as it was

    expect(await runPlanCommand(orca, 'orca-resume', '', 'ses_me')).toBe(
      `Orca: plan ${planId} resumed: 0 of 2 steps done. It runs; a note follows each step done and its end here. /orca-pause pauses it again.`,
    );
    expect(host.isLive(planId)).toBe(true);
    expect(follower.isFollowing(planId)).toBe(true);
    expect(turnFollowers.detached(planId)).toEqual(new Set());
  });

  it('should ask again, note first, the gate a plan waits at after its dialog was closed', async () => {
    const { orca, host, said, asked } = orcaWith([{ kind: 'dismissed', sessionId: 'ses_q' }, { kind: 'answered', answers: [['Approve']], sessionId: 'ses_q' }]);
    const planId = approvalPlan(host, 'say hello', 'ses_me');
    expect(await runPlanCommand(orca, 'orca-resume', '', 'ses_me')).toBe(
      `Orca: plan ${planId} resumed. It waits for approval: what to read and the dialog follow here. /orca-pause pauses it again.`,
    );
    await settle();
    expect(said.map(([session, text]) => [session, text.split('\n')[0]])).toEqual([
      ['ses_me', `Orca: plan ${planId} waits for your approval: 2 steps.`],
      ['ses_me', `Orca: The dialog was closed: plan ${planId} still waits for approval. To go on, answer with /orca-approve, /orca-changes <guidance>, /orca-reject, or type /orca-resume to be asked again.`],
    ]);
    await runPlanCommand(orca, 'orca-resume', planId, 'ses_me');
    await settle();
    expect(asked).toHaveLength(2);
    expect(said).toHaveLength(3); // the document again, above the new dialog
    expect(host.open(planId).getSnapshot().context.decisions.at(-1)).toMatchObject({ gate: 'approval', option: 'Approve', channel: 'question' });
  });

  it('should say what to type when nothing or several plans fit, and refuse a plan an Orca turn follows', async () => {
    const { orca, host, turnFollowers } = orcaWith();
    await expect(runPlanCommand(orca, 'orca-pause', '', 'ses_me')).rejects.toThrow(new CommandError('No plan of this session is running here. Name one: /orca-pause <plan_id> (orca plans lists them).'));
    const one = runningPlan(host, 'ses_me');
    const two = runningPlan(host, 'ses_me');
    await expect(runPlanCommand(orca, 'orca-pause', '', 'ses_me')).rejects.toThrow(/^Several plans of this session are running here: plan_\w+, plan_\w+\. Use \/orca-pause <plan_id>\.$/);
    const unfollow = turnFollowers.follow(one);
    await expect(runPlanCommand(orca, 'orca-pause', one, 'ses_me')).rejects.toThrow(`An Orca turn follows plan ${one}: press Esc there to pause it.`);
    unfollow();
    expect(await runPlanCommand(orca, 'orca-pause', two, 'ses_me')).toMatch(new RegExp(`^Orca: plan ${two} is paused and saved`));
  });
});
