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

/** Print lines, each ending in a newline. */
export const println = (write: (text: string) => void, ...lines: string[]) => write(lines.map((l) => `${l}\n`).join(''));
