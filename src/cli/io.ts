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
  /** stdout is a terminal (not a pipe or a file). */
  tty?: boolean;
  /** stdout is a terminal that takes colours (NO_COLOR is not set). */
  colour?: boolean;
  /**
   * Lines to stdout, each in its style (terminalIo): on a terminal made safe and coloured; into a pipe or
   * a file byte for byte, so `orca diff … | git apply -R` gets the patch as it is.
   */
  styled?: (lines: ReadonlyArray<StyledLine>) => void;
}

/** A line and how it is shown on a terminal: a diff's added and removed lines, its hunk headers, a heading. */
export type StyledLine = readonly [text: string, style?: 'added' | 'removed' | 'hunk' | 'heading'];

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    now: () => new Date(),
    tty: Boolean(process.stdout.isTTY),
    colour: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
  };
}

/** SGR colours of each style: green, red, cyan, bold. */
const SGR: Record<NonNullable<StyledLine[1]>, string> = { added: '32', removed: '31', hunk: '36', heading: '1' };

/**
 * The io every command writes through (main.ts): what reaches stdout and stderr passes forTerminal,
 * so a goal, summary or error a model wrote cannot drive the user's terminal, whichever formatter
 * printed it. Its only escape sequences are the colours of `styled`, put around lines already made safe.
 */
export function terminalIo(io: CliIo): CliIo {
  const paint = (text: string, style: StyledLine[1]) => (io.colour && style ? `\x1b[${SGR[style]}m${text}\x1b[0m` : text);
  return {
    ...io,
    stdout: (text) => io.stdout(forTerminal(text)),
    stderr: (text) => io.stderr(forTerminal(text)),
    styled: (lines) => io.stdout(lines.map(([text, style]) => `${io.tty ? paint(forTerminal(text), style) : text}\n`).join('')),
  };
}

/** Print lines, each ending in a newline. */
export const println = (write: (text: string) => void, ...lines: string[]) => write(lines.map((l) => `${l}\n`).join(''));
