import type { CliIo } from './io.js';

/** What main.ts hands every command after parsing the command line. */
export interface CommandContext {
  io: CliIo;
  /** Absolute path of the project (`--dir`, else the current directory). */
  project: string;
  /** Positional arguments after the command name. */
  args: string[];
  options: {
    message?: string;
    step?: string;
    /** undo's --step, as often as given. */
    steps?: string[];
    port?: number;
    once?: boolean;
    model?: string;
    /** prune's --drafts-older-than and --finished-older-than, in days; --yes; --slots (the worktree slots, not plans). */
    draftsOlderThan?: number;
    finishedOlderThan?: number;
    yes?: boolean;
    slots?: boolean;
  };
}

export type Command = (context: CommandContext) => number | Promise<number>;
