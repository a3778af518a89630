import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAgenda } from '../../src/agenda/runtime.js';
import { eventsPath } from '../../src/agenda/store.js';
import { runCli, tempProject, type Project } from './fixtures.js';

let project: Project;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.remove());

const later = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
const orca = (...argv: string[]) => runCli([...argv, '--dir', project.dir], { HOME: project.dir, PATH: '/usr/bin:/bin' });

describe('orca agenda and orca emit without a server', () => {
  it('should list, emit, cancel, pause and resume, writing the log under the lease', async () => {
    expect(await orca('agenda')).toEqual({ code: 0, stdout: expect.stringMatching(/^No pending agenda items\.\nNo OpenCode server runs this agenda now/), stderr: '' });
    const agenda = readAgenda(project.dir);
    const item = agenda.create({ trigger: { type: 'event', eventKind: 'tests.failed' }, action: { type: 'plan', message: 'fix the tests' }, reason: 'red CI', createdBy: 'cli' });
    agenda.create({ trigger: { type: 'time', executeAt: later(90) }, action: { type: 'emit', kind: 'x', message: '' }, reason: 'later', createdBy: 'cli' });
    const listed = await orca('agenda', 'list');
    expect(listed.stdout).toMatch(/AGENDA ID\s+STATUS\s+TRIGGER\s+ACTION\s+REASON/);
    expect(listed.stdout).toContain(`${item.agendaId}  pending  on tests.failed`);
    expect(listed.stdout).toMatch(/next due: \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);

    const emitted = await orca('emit', 'tests.failed', '--message', 'CI run 42 is red');
    expect(emitted).toMatchObject({ code: 0, stderr: '' });
    expect(emitted.stdout).toMatch(/^emitted tests\.failed \(evt_\w{26}\): recorded in \.opencode\/agenda\/events\.jsonl; no server runs the agenda/);
    expect((await orca('agenda', 'events')).stdout).toMatch(/tests\.failed \(cli\): CI run 42 is red/);

    expect(await orca('agenda', 'cancel', item.agendaId, '-m', 'fixed by hand')).toMatchObject({ code: 0, stdout: `cancelled ${item.agendaId} (no server runs the agenda: written to .opencode/agenda; the next server reads it)\n` });
    expect(readAgenda(project.dir).get(item.agendaId)).toMatchObject({ status: 'cancelled', cancelReason: 'fixed by hand' });
    expect(await orca('agenda', 'cancel', item.agendaId)).toMatchObject({ code: 1, stderr: `orca: ${item.agendaId} is cancelled: only a pending item can be cancelled.\n` });
    expect((await orca('agenda', 'pause')).stdout).toMatch(/^paused/);
    expect((await orca('agenda')).stdout).toMatch(/^The agenda is PAUSED/);
    expect((await orca('agenda', 'resume')).stdout).toMatch(/^resumed/);
    expect(readAgenda(project.dir).paused).toBe(false);
  });

  it('should refuse bad sub-commands, ids and kinds with one line', async () => {
    expect(await orca('agenda', 'frob')).toMatchObject({ code: 2, stderr: 'orca: orca agenda takes one of list, events, show, continue, cancel, clear, pause, resume, got "frob" (orca --help).\n' });
    expect(await orca('agenda', 'cancel')).toMatchObject({ code: 2 });
    expect(await orca('agenda', 'show')).toMatchObject({ code: 2, stderr: 'orca: orca agenda show needs an agendaId (orca agenda lists them).\n' });
    expect(await orca('agenda', 'continue')).toMatchObject({ code: 2 });
    expect(await orca('agenda', 'list', 'agn_x')).toMatchObject({ code: 2, stderr: 'orca: orca agenda list takes no argument (orca --help).\n' });
    expect(await orca('agenda', 'show', '../x')).toMatchObject({ code: 1, stderr: expect.stringMatching(/^orca: Invalid agendaId "\.\.\/x"/) });
    const emitter = readAgenda(project.dir).create({ trigger: { type: 'event', eventKind: 'x' }, action: { type: 'emit', kind: 'y', message: '' }, reason: 'r', createdBy: 'cli' });
    expect(await orca('agenda', 'continue', emitter.agendaId)).toMatchObject({ code: 1, stderr: `orca: ${emitter.agendaId} started no plan (emit y): nothing to continue.\n` });
    expect((await orca('agenda', 'show', emitter.agendaId)).stdout).toMatch(new RegExp(`^Agenda item ${emitter.agendaId}\n  status   pending\n  trigger  on x\n  action   emit y\n`));
    expect(await orca('agenda', 'cancel', '../x')).toMatchObject({ code: 1, stderr: expect.stringMatching(/^orca: Invalid agendaId "\.\.\/x"/) });
    expect(await orca('emit', 'has space')).toMatchObject({ code: 1, stderr: expect.stringMatching(/^orca: Invalid event \{"type":"emit","kind":"has space"/) });
    expect(await orca('emit')).toMatchObject({ code: 2 });
  });

  it('should show pending items, the next due time, a pause and skipped lines in orca doctor', async () => {
    const agenda = readAgenda(project.dir);
    agenda.create({ trigger: { type: 'time', executeAt: later(30) }, action: { type: 'plan', message: 'nightly' }, reason: 'r', createdBy: 'cli' });
    appendFileSync(eventsPath(project.dir), '{"type":"agenda.created", "broken\n');
    mkdirSync(join(project.dir, '.opencode', 'agenda'), { recursive: true });
    writeFileSync(join(project.dir, '.opencode', 'agenda', 'config.json'), '{"paused": true}\n');
    const { stdout } = await orca('doctor');
    const section = stdout.slice(stdout.indexOf('\nAgenda\n'));
    expect(section).toMatch(/✓ 1 pending agenda item\(s\), next due \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);
    expect(section).toMatch(/! No OpenCode server runs this agenda now/);
    expect(section).toContain('! the agenda is paused');
    expect(section).toMatch(/! \.opencode\/agenda\/events\.jsonl line 2 was skipped: not JSON/);
  });
});
