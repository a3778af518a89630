import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { BusEvent } from '../opencode/session-monitor.js';
import type { TranscriptMessage } from '../opencode/tool-failures.js';
import { errorMessage } from '../errors.js';

/**
 * What Orca's instance inside a step's worktree hands to the main instance of its repository:
 * OpenCode gives each instance only the events of its own directory, yet the main instance's
 * idle timeout, usage meter and tool-failure breaker watch the step's sessions, which run there.
 */
export interface MainSink {
  /** Every event of the worktree instance (the main instance's own `event` observers). */
  event(event: BusEvent): void;
  /** Before every model request of the worktree instance, with the transcript OpenCode is about to send. */
  beforeModelRequest(messages: TranscriptMessage[]): Promise<void>;
}

export type RelayLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => void;

/** Main instances by the realpath of their repository's git common dir. */
type Registry = Map<string, Set<MainSink>>;

/**
 * On globalThis, not in this module: both instances run in the same process, but each may load
 * its own copy of the plugin (a worktree has its own path to it), and module state is per copy.
 */
const REGISTRY = Symbol.for('opencode-orca.main-instances');

function registry(): Registry {
  const holder = globalThis as unknown as Record<symbol, Registry | undefined>;
  return (holder[REGISTRY] ??= new Map());
}

/** Registers a main instance's sink under its repository's git common dir; returns its unregister. */
export function registerMainInstance(commonDir: string, sink: MainSink): () => void {
  const sinks = registry().get(commonDir) ?? new Set<MainSink>();
  registry().set(commonDir, sinks.add(sink));
  return function unregisterMainInstance() {
    const current = registry().get(commonDir);
    if (!current?.delete(sink) || current.size > 0) return;
    registry().delete(commonDir);
  };
}

/** The sinks registered under `commonDir` now, oldest first. */
export function mainInstancesOf(commonDir: string): readonly MainSink[] {
  return [...(registry().get(commonDir) ?? [])];
}

/**
 * The main instance's side: finds the repository of `directory` (in the background, once), then
 * registers `sink` under it. No git, or no repository: nothing is registered (no step runs in a
 * worktree then). The returned function unregisters, or cancels a registration still to come.
 */
export function registerMainInstanceOf(directory: string, sink: MainSink, log: RelayLog): () => void {
  let unregister: (() => void) | null = null;
  let disposed = false;
  void gitCommonDir(directory).then((commonDir) => {
    if (disposed || !commonDir) return;
    unregister = registerMainInstance(commonDir, sink);
    log('debug', `steps' worktrees of ${commonDir} relay their events to this instance`);
  });
  return function unregisterMainInstanceOf() {
    disposed = true;
    unregister?.();
  };
}

/** What the worktree instance calls: the main instances' sinks, guarded, found again at each call. */
export interface MainRelay {
  event(event: BusEvent): void;
  beforeModelRequest(messages: TranscriptMessage[]): Promise<void>;
  /** Whether a main instance of the repository is registered now. */
  connected(): boolean;
}

/**
 * The worktree instance's side: hands each call to every main instance registered under
 * `commonDir` (two OpenCode directories of one repository make two; a sink ignores sessions it
 * does not run). A sink that throws or rejects is logged once per message and never throws back
 * into OpenCode. With no common dir, or none registered, a call does nothing.
 */
export function relayToMain(commonDir: string | null, log: RelayLog): MainRelay {
  const reported = new Set<string>();
  const report = (what: string, error: unknown) => {
    const message = `the main instance's ${what} failed on a worktree's call and was skipped (logged once): ${errorMessage(error)}`;
    if (reported.has(message)) return;
    reported.add(message);
    log('error', message);
  };
  const sinks = () => (commonDir ? mainInstancesOf(commonDir) : []);
  return {
    event(event) {
      for (const sink of sinks()) {
        try {
          sink.event(event);
        } catch (error) {
          report('event observer', error);
        }
      }
    },
    async beforeModelRequest(messages) {
      for (const sink of sinks()) {
        try {
          await sink.beforeModelRequest(messages);
        } catch (error) {
          report('tool-failure breaker', error);
        }
      }
    },
    connected: () => sinks().length > 0,
  };
}

/** Git's own variables would point every directory at one repository: the directory decides here. */
const GIT_LOCATION_VARIABLES = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR'];

/**
 * The realpath of the git common dir of the repository holding `directory` (`<repo>/.git` for a
 * checkout and for every linked worktree of it alike), or null when git is missing or the
 * directory is in no repository.
 */
export async function gitCommonDir(directory: string): Promise<string | null> {
  const env = { ...process.env };
  for (const name of GIT_LOCATION_VARIABLES) delete env[name];
  const out = await new Promise<string | null>((done) => {
    execFile('git', ['rev-parse', '--git-common-dir'], { cwd: directory, env, timeout: 10_000, windowsHide: true }, (error, stdout) =>
      done(error ? null : stdout.trim() || null),
    );
  });
  if (!out) return null;
  try {
    // Relative to the directory it was asked in (".git", "../.git"); absolute in a linked worktree.
    return await realpath(resolve(directory, out));
  } catch {
    return null;
  }
}
