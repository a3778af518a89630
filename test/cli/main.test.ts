import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/main.js';
import { packageInfo } from '../../src/cli/package-info.js';
import { USAGE } from '../../src/cli/usage.js';
import { runCli } from './fixtures.js';

describe('orca (dispatch)', () => {
  it.each([[[]], [['--help']], [['-h']], [['help']], [['decide', '--help']]])('should print the usage for %j', async (argv) => {
    expect(await runCli(argv)).toEqual({ code: 0, stdout: USAGE, stderr: '' });
  });

  it('should list every command in the usage', () => {
    for (const name of Object.keys(COMMANDS)) expect(USAGE).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });

  it('should print the version', async () => {
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${packageInfo().version}\n`, stderr: '' });
  });

  it.each([
    [['frobnicate'], /^orca: Unknown command "frobnicate": expected one of plans, show, decide, init, doctor, inspect, ui, agenda, emit, prune, diff, undo, redo \(orca --help\)\.$/],
    [['ui', '--once'], /^orca: orca ui does not take --once \(orca --help\)\.$/],
    [['ui', 'now'], /^orca: orca ui takes at most 0 argument\(s\), got 1: "now" \(orca --help\)\.$/],
    [['plans', '--verbose'], /^orca: Unknown option '--verbose' \(orca --help\)\.$/],
    [['plans', '--message', 'x'], /^orca: orca plans does not take --message \(orca --help\)\.$/],
    [['plans', 'extra'], /^orca: orca plans takes at most 0 argument\(s\), got 1: "extra" \(orca --help\)\.$/],
    [['show', '--dir'], /^orca: Option '--dir <value>' argument missing \(orca --help\)\.$/],
    [['plans', '--dir', '/no/such/dir'], /^orca: --dir \/no\/such\/dir: no such directory\.$/],
  ])('should refuse %j with one line on stderr and exit 2', async (argv, message) => {
    const { code, stdout, stderr } = await runCli(argv);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trimEnd()).toMatch(message);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('should refuse inspect without a valid plan_id or with a bad port', async () => {
    expect((await runCli(['inspect'])).code).toBe(2);
    expect((await runCli(['inspect', '../x', '--once'])).code).toBe(2);
    expect(await runCli(['inspect', 'plan_01JDX4Z6Q5H2M3N4P5R6S7T8V9', '--port', 'nope'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--port must be a port number/) });
    expect((await runCli(['plans', '--once'])).code).toBe(2);
  });
});
