import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyActorRef } from 'xstate';
import { runCli, tempProject, twoStepPlan, type Project } from './fixtures.js';
import { turn } from '../support/turns.js';

/** What a model could write to take over a terminal: a colour, NUL, BEL, a one-byte CSI, a right-to-left override. */
const EVIL = '\x1b[31mred\x00\x07\u009b2J\u202Eevil';
/** Any character a terminal would act on, a newline aside. */
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const SHOWN = '␛[31mred␀␇[U+009B]2J[U+202E]evil';

let project: Project;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.remove());

const by = { channel: 'command' as const, at: '2026-01-01T00:00:00.000Z' };
const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output }) as never;

/** A plan whose goal, s1's summary and finding, and s2's error carry EVIL; s2 waits at the deviation gate. */
async function evilPlan(): Promise<string> {
  const host = project.host();
  const planId = host.create({ message: 'say hello' }).getSnapshot().context.plan_id;
  host.send(planId, done('openPlannerSession', { sessionId: 'ses_planner' }));
  host.send(planId, done('consultPlanner', turn({ ...twoStepPlan, goal: `Greet ${EVIL}` })));
  host.send(planId, { type: 'approval.approve', ...by });
  const step = (id: string) => host.open(planId).getSnapshot().children[`step:${id}`] as AnyActorRef;
  step('s1').send(done('openSpecialistSession', { sessionId: 'ses_s1' }));
  step('s1').send(done('runSpecialist', turn({ type: 'success', summary: `wrote ${EVIL}`, artifacts: ['hello.ts'], key_findings: [`found ${EVIL}`] })));
  step('s2').send(done('openSpecialistSession', { sessionId: 'ses_s2' }));
  step('s2').send(done('runSpecialist', turn({ type: 'failure', error: `broke ${EVIL}` })));
  await host.dispose();
  return planId;
}

describe('model-written text on the terminal', () => {
  it('should print no control or bidi character of a goal, summary, finding or error in orca show, and show each visibly', async () => {
    const planId = await evilPlan();
    const { code, stdout, stderr } = await runCli(['show', planId, '--dir', project.dir]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).not.toMatch(UNSAFE);
    expect(stdout).toContain(`Greet ${SHOWN}`);
    expect(stdout).toContain(`summary: wrote ${SHOWN}`);
    expect(stdout).toContain(`found ${SHOWN}`);
    expect(stdout).toContain(`broke ${SHOWN}`);
  });

  it('should keep the text exactly in the plan file', async () => {
    const planId = await evilPlan();
    const file = JSON.parse(readFileSync(project.store.pathOf(planId), 'utf8'));
    expect(file.goal).toBe(`Greet ${EVIL}`);
    const [s1, s2] = file.steps;
    expect(s1.output.summary).toBe(`wrote ${EVIL}`);
    expect(s1.output.key_findings).toEqual([`found ${EVIL}`]);
    expect(s2.failures.at(-1).error).toBe(`broke ${EVIL}`);
  });

  it('should print none in orca plans either', async () => {
    await evilPlan();
    const { stdout } = await runCli(['plans', '--dir', project.dir]);
    expect(stdout).toContain('Greet ␛[31m');
    expect(stdout).not.toMatch(UNSAFE);
  });

  it('should print none in an error message on stderr', async () => {
    const { code, stderr } = await runCli([`show${EVIL}`, '--dir', project.dir]);
    expect(code).not.toBe(0);
    expect(stderr).toContain(`show${SHOWN}`);
    expect(stderr).not.toMatch(UNSAFE);
  });
});
