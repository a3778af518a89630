#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Command, CommandContext } from './command.js';
import { agendaCommand } from './agenda.js';
import { decideCommand } from './decide.js';
import { diffCommand } from './diff.js';
import { redoCommand, undoCommand } from './undo.js';
import { emitCommand } from './emit.js';
import { doctorCommand } from './doctor.js';
import { RefusedError, UsageError } from '../request-errors.js';
import { initCommand } from './init.js';
import { inspectCommand } from './inspect.js';
import { processIo, println, terminalIo, type CliIo } from './io.js';
import { packageInfo } from './package-info.js';
import { plansCommand } from './plans.js';
import { parseDays, pruneCommand } from './prune.js';
import { projectDir } from './project.js';
import { showCommand } from './show.js';
import { uiCommand } from './ui.js';
import { USAGE } from './usage.js';
import { quote } from '../text/quote.js';
import { errorMessage } from '../errors.js';

type OptionName = keyof CommandContext['options'];

/** Each command, how many positionals it takes, and which options besides --dir. */
export const COMMANDS: Record<string, { run: Command; args: [min: number, max: number]; options: OptionName[] }> = {
  plans: { run: plansCommand, args: [0, 0], options: [] },
  show: { run: showCommand, args: [1, 1], options: [] },
  decide: { run: decideCommand, args: [1, 2], options: ['message', 'step'] },
  init: { run: initCommand, args: [0, 0], options: ['model'] },
  doctor: { run: doctorCommand, args: [0, 0], options: [] },
  inspect: { run: inspectCommand, args: [1, 1], options: ['port', 'once'] },
  ui: { run: uiCommand, args: [0, 0], options: ['port'] },
  agenda: { run: agendaCommand, args: [0, 2], options: ['message'] },
  emit: { run: emitCommand, args: [1, 1], options: ['message'] },
  prune: { run: pruneCommand, args: [0, 0], options: ['draftsOlderThan', 'finishedOlderThan', 'yes', 'slots'] },
  diff: { run: diffCommand, args: [1, 1], options: ['step'] },
  undo: { run: undoCommand, args: [1, 1], options: ['steps', 'yes'] },
  redo: { run: redoCommand, args: [1, 1], options: ['yes'] },
};

const OPTIONS = {
  dir: { type: 'string' },
  message: { type: 'string', short: 'm' },
  step: { type: 'string', multiple: true },
  model: { type: 'string' },
  port: { type: 'string' },
  once: { type: 'boolean' },
  'drafts-older-than': { type: 'string' },
  'finished-older-than': { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  slots: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** Run one command line; returns the exit code. Errors become one line on stderr. Output passes terminalIo. */
export async function main(argv: string[], rawIo: CliIo = processIo()): Promise<number> {
  const io = terminalIo(rawIo);
  try {
    const { values, positionals } = parseCommandLine(argv);
    const [name, ...args] = positionals;
    if (values.version) {
      println(io.stdout, packageInfo().version);
      return 0;
    }
    if (values.help || name === undefined || name === 'help') {
      io.stdout(USAGE);
      return 0;
    }
    const command = COMMANDS[name];
    if (!command) throw new UsageError(`Unknown command "${name}": expected one of ${Object.keys(COMMANDS).join(', ')} (orca --help).`);
    const [min, max] = command.args;
    if (args.length > max) throw new UsageError(`orca ${name} takes at most ${max} argument(s), got ${args.length}: ${quote(args.join(' '))} (orca --help).`);
    if (args.length < min) throw new UsageError(`orca ${name} needs ${min} argument(s) (orca --help).`);
    const options: CommandContext['options'] = {};
    for (const key of ['message', 'model'] as const) {
      const value = values[key];
      if (value === undefined) continue;
      if (!command.options.includes(key)) throw new UsageError(`orca ${name} does not take --${key} (orca --help).`);
      options[key] = value;
    }
    if (values.step !== undefined) {
      // --step again and again names several steps (undo); a command about one step takes one.
      if (command.options.includes('steps')) options.steps = values.step;
      else if (!command.options.includes('step')) throw new UsageError(`orca ${name} does not take --step (orca --help).`);
      else if (values.step.length > 1) throw new UsageError(`orca ${name} takes one --step, got ${values.step.length}: ${values.step.join(', ')}.`);
      else options.step = values.step[0]!;
    }
    // --once is inspect's: a command that takes --port alone refuses it rather than ignore it.
    if (values.once !== undefined && command.options.includes('port') && !command.options.includes('once')) {
      throw new UsageError(`orca ${name} does not take --once (orca --help).`);
    }
    if (values.port !== undefined || values.once !== undefined) {
      if (!command.options.includes('port')) throw new UsageError(`orca ${name} does not take --port or --once (orca --help).`);
      if (values.port !== undefined) {
        const port = Number(values.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number from 0 to 65535, got ${quote(values.port)}.`);
        options.port = port;
      }
      if (values.once) options.once = true;
    }
    for (const [flag, key] of [['drafts-older-than', 'draftsOlderThan'], ['finished-older-than', 'finishedOlderThan']] as const) {
      const value = values[flag];
      if (value === undefined) continue;
      if (!command.options.includes(key)) throw new UsageError(`orca ${name} does not take --${flag} (orca --help).`);
      options[key] = parseDays(`--${flag}`, value);
    }
    if (values.yes !== undefined) {
      if (!command.options.includes('yes')) throw new UsageError(`orca ${name} does not take --yes (orca --help).`);
      options.yes = values.yes;
    }
    if (values.slots !== undefined) {
      if (!command.options.includes('slots')) throw new UsageError(`orca ${name} does not take --slots (orca --help).`);
      options.slots = values.slots;
    }
    return await command.run({ io, project: projectDir(values.dir), args, options });
  } catch (error) {
    if (error instanceof UsageError || error instanceof RefusedError) {
      println(io.stderr, `orca: ${error.message}`);
      return error.exitCode;
    }
    // A bug, not a user error: one line, the stack only when asked for.
    const detail = io.env.ORCA_DEBUG && error instanceof Error ? (error.stack ?? error.message) : errorMessage(error);
    println(io.stderr, `orca: unexpected error: ${detail} (ORCA_DEBUG=1 shows the stack)`);
    return 1;
  }
}

function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({ args: withNegativeDays(argv), options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs says e.g. "Unknown option '--x'. To specify a positional argument starting with a '-' …"
    throw new UsageError(`${errorMessage(error).split(/\.\s/)[0]} (orca --help).`);
  }
}

/** `--drafts-older-than -5` as `--drafts-older-than=-5`: parseArgs takes -5 for an option; the day check then says what was expected. */
function withNegativeDays(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if ((arg === '--drafts-older-than' || arg === '--finished-older-than') && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i += 1;
    } else out.push(arg);
  }
  return out;
}

/** True when this file is the process's entry (bin symlink, npx, `node dist/cli/main.js`), not an import. */
function isEntry(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntry()) process.exitCode = await main(process.argv.slice(2));
