import { forTerminal } from '../text/terminal.js';

/**
 * What a command touches outside its arguments, injected so tests run commands in-process:
 * output streams, the environment (PATH, HOME, XDG_*) and the clock.
 */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  now: () => Date;
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    now: () => new Date(),
  };
}

/**
 * The io every command writes through (main.ts): what reaches stdout and stderr passes forTerminal,
 * so a goal, summary or error a model wrote cannot drive the user's terminal, whichever formatter
 * printed it. The CLI prints no escape sequences of its own.
 */
export function terminalIo(io: CliIo): CliIo {
  return { ...io, stdout: (text) => io.stdout(forTerminal(text)), stderr: (text) => io.stderr(forTerminal(text)) };
}

/** Print lines, each ending in a newline. */
export const println = (write: (text: string) => void, ...lines: string[]) => write(lines.map((l) => `${l}\n`).join(''));
