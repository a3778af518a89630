// A plan an agenda firing started, interrupted midway when its server stopped (issue 27.5): the
// firing itself ended long before ("approved; running"), so the agenda's own log cannot tell. The
// CLI reads the plan as it is now and says so — `orca agenda`, `orca agenda show` — and `orca
// agenda continue` resumes it from its saved state through the running server's agenda (a resume
// firing: the plans' own resume path), never drafting it again.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgendaCommand } from '../../src/agenda/bridges/slash-commands.js';
import { assembleOrca, type Orca } from '../../src/composition-root.js';
import type { SessionsPort } from '../../src/opencode/sessions.js';
import { createSessionMonitor } from '../../src/opencode/session-monitor.js';
import { agendaTool } from '../../src/tools/agenda.js';
import { runCli } from './fixtures.js';
import { toolContext } from '../support/agenda-orca.js';
import { fakeSessions } from '../support/fake-sessions.js';
import { waitFor } from '../support/wait-for.js';

const plan = {
  type: 'plan',
  goal: 'Run the nightly checks',
  steps: [
    { id: 's1', agent: 'tester', description: 'run the unit tests' },
    { id: 's2', agent: 'tester', description: 'run the integration tests', depends_on: ['s1'] },
  ],
  assumptions: [],
  risks: [],
  verification: [],
};

const dirs: string[] = [];
const servers: Orca[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.dispose();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Orca in process, its agenda running, over fake sessions; `hold(agent, n)` keeps that turn in flight until the server stops. */
function server(dir: string, hold: (agent: string, n: number) => boolean = () => false) {
  const fake = fakeSessions((agent) => (agent === 'planner' ? plan : { type: 'success', summary: `${agent} done`, artifacts: [] }));
  const counts = new Map<string, number>();
  const sessions: SessionsPort = {
    ...fake.port,
    async prompt(input) {
      const n = (counts.get(input.agent) ?? 0) + 1;
      counts.set(input.agent, n);
      if (hold(input.agent, n)) return new Promise(() => {}); // in flight when the server stops
      return fake.port.prompt(input);
    },
  };
  const orca = assembleOrca({
    directory: dir,
    options: { review: { agents: [] }, hitl: { auto: { approval: 'approve' } }, agenda: { poll_seconds: 1 } },
    sessions,
    asker: { ask: async () => ({ kind: 'unavailable', reason: 'no dialog in this test' }) },
    notes: { post: () => {}, say: async () => true, restoreAfterTurn: () => {}, turnStarting: async () => {}, observe: () => {} },
    monitor: createSessionMonitor({ abort: async () => {}, log: () => {} }),
    log: () => {},
    showToast: () => {},
    runCommand: async () => ({ text: '' }),
  });
  servers.push(orca);
  return { orca, prompts: fake.prompts };
}

const planFile = (dir: string, planId: string) => JSON.parse(readFileSync(join(dir, '.opencode', 'plans', `${planId}.json`), 'utf8'));

describe('orca agenda and a plan its firing started, interrupted midway', () => {
  it('says what became of the firing, and orca agenda continue resumes the plan from where it stopped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orca-agenda-continue-'));
    dirs.push(dir);
    const orca = (...argv: string[]) => runCli([...argv, '--dir', dir], { HOME: dir, PATH: '/usr/bin:/bin' });

    // The first server: a nightly item fires, its plan is approved by the auto policy, s1 completes, s2's turn is in flight.
    const first = server(dir, (agent, n) => agent === 'tester' && n === 2);
    await waitFor(() => first.orca.agenda.holding, { timeoutMs: 10_000, description: 'the agenda' });
    const created = await first.orca.agenda.request({ op: 'create', trigger: { type: 'time', executeAt: new Date().toISOString() }, action: { type: 'plan', message: 'run the nightly checks' }, reason: 'nightly', createdBy: 'cli' });
    if (created.status !== 'done' || created.reply.op !== 'create') throw new Error('not created');
    const agendaId = created.reply.item.agendaId;
    const fired = await waitFor(() => (first.orca.agenda.get(agendaId).status === 'executed' ? first.orca.agenda.get(agendaId) : null), { timeoutMs: 15_000, description: 'the firing' });
    const planId = fired.planId!;
    await waitFor(() => planFile(dir, planId).steps[1].status === 'running', { timeoutMs: 15_000, description: 's2 in flight' });
    expect(planFile(dir, planId).steps.map((s: { status: string }) => s.status)).toEqual(['completed', 'running']);

    // While the server runs it, the agenda says the plan runs, and there is nothing to continue.
    expect((await orca('agenda', 'show', agendaId)).stdout).toContain(`  plan now ${planId} running at step s2 (a server runs it)\n`);
    expect((await orca('agenda')).stdout).not.toContain('interrupted');
    expect(await orca('agenda', 'continue', agendaId)).toEqual({ code: 1, stdout: '', stderr: `orca: ${planId} running at step s2 (a server runs it): nothing to continue (a server runs it now).\n` });

    // The server stops mid-step; a new one starts (and, as always, runs no interrupted plan on its own).
    await first.orca.dispose();
    servers.splice(servers.indexOf(first.orca), 1);
    const second = server(dir);
    await waitFor(() => second.orca.agenda.holding, { timeoutMs: 10_000, description: 'the agenda after the restart' });
    expect(planFile(dir, planId)).toMatchObject({ status: 'in_progress', waiting_for: null });

    const listed = await orca('agenda');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(`\\nPlans the agenda started that were interrupted \\(nothing runs them\\):\\n  ${agendaId} fired \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ → ${planId} interrupted at step s2 \\(nothing runs it\\); resume with: orca agenda continue ${agendaId}\\n`),
    );
    const shown = (await orca('agenda', 'show', agendaId)).stdout;
    expect(shown).toContain(`  status   executed\n`);
    expect(shown).toMatch(/ {2}result {3}plan_\w+ approved .*; running\n/); // what the firing saw when it ended
    expect(shown).toContain(`  plan now ${planId} interrupted at step s2 (nothing runs it)\n`);
    expect(shown).toContain(`  resume   orca agenda continue ${agendaId} (a resume firing, now: the plan goes on from its saved state; or ask Orca in OpenCode to continue plan ${planId})\n`);
    // The agenda tool's list says the same to the model (the item fired: among the latest finished).
    const tool = agendaTool(second.orca);
    const result = await tool.execute({ op: 'list' } as never, toolContext(dir) as never);
    const listedByTool = JSON.parse(typeof result === 'string' ? result : (result as { output: string }).output);
    expect(listedByTool.finished.latest.find((i: { agendaId: string }) => i.agendaId === agendaId)).toMatchObject({
      status: 'executed',
      lastFiredAt: fired.lastFiredAt,
      plan: {
        planId,
        now: 'interrupted',
        words: `${planId} interrupted at step s2 (nothing runs it)`,
        resume: `Call orca_ask_planner with plan_id ${planId} to resume it from its saved state (from a shell: orca agenda continue ${agendaId}).`,
      },
    });

    // And /agenda, in OpenCode.
    expect(await runAgendaCommand(second.orca, 'agenda', '')).toBe(
      [
        'Orca agenda: no pending items.',
        'Plans the agenda started that were interrupted:',
        `- ${agendaId} fired ${fired.lastFiredAt} → ${planId} interrupted at step s2 (nothing runs it); resume it: ask Orca to continue plan ${planId}, or run orca agenda continue ${agendaId}`,
      ].join('\n'),
    );

    const continued = await orca('agenda', 'continue', agendaId);
    expect(continued).toMatchObject({ code: 0, stderr: '' });
    const resumeId = /^(agn_\w{26}) resumes /.exec(continued.stdout)?.[1];
    expect(continued.stdout).toBe(`${resumeId} resumes ${planId} now in the running server, from its saved state; orca agenda show ${resumeId} says where it stops next\n`);
    await waitFor(() => planFile(dir, planId).status === 'completed', { timeoutMs: 15_000, description: 'the resumed plan to complete' });
    // From where it stopped: s1 did not run again, the planner was not asked again, s2 finished its attempt.
    expect(second.prompts.filter((p) => p.agent === 'planner')).toEqual([]);
    expect(second.prompts.map((p) => p.agent)).toEqual(['tester']);
    expect(planFile(dir, planId).steps.map((s: { id: string; status: string; attempts: number }) => [s.id, s.status, s.attempts])).toEqual([
      ['s1', 'completed', 1],
      ['s2', 'completed', 1],
    ]);
    const resumed = await waitFor(() => (second.orca.agenda.get(resumeId!).status === 'executed' ? second.orca.agenda.get(resumeId!) : null), { timeoutMs: 10_000, description: 'the resume firing' });
    expect(resumed).toMatchObject({ action: { type: 'resume', plan_id: planId }, planId, createdBy: 'cli' });
    expect((await orca('agenda', 'show', agendaId)).stdout).toContain(`  plan now ${planId} completed\n`);
    expect((await orca('agenda')).stdout).not.toContain('interrupted');
    expect(await runAgendaCommand(second.orca, 'agenda', '')).toBe('Orca agenda: no pending items.');
    expect(await orca('agenda', 'continue', agendaId)).toMatchObject({ code: 1, stderr: `orca: ${planId} completed: nothing to continue (it has finished).\n` });
  }, 60_000);
});
