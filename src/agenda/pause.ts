import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureStateDir } from '../persistence/state-dir.js';
import { writeFileAtomic } from '../persistence/atomic-write.js';
import { quote } from './errors.js';
import { agendaDir } from './store.js';
import { errorMessage } from '../errors.js';

/**
 * `.opencode/agenda/config.json` holds `{"paused": bool}`, written atomically, so a pause
 * survives restarts. A file that cannot be read as such is reported and counts as paused: an
 * unreadable pause must not start running items a human stopped; `/agenda-resume` rewrites it.
 */

export const configPath = (projectDir: string) => join(agendaDir(projectDir), 'config.json');

export interface PauseState {
  paused: boolean;
  /** Why the file was not understood (then `paused` is true). */
  problem?: string;
}

export function readPaused(projectDir: string): PauseState {
  const path = configPath(projectDir);
  if (!existsSync(path)) return { paused: false };
  const text = readFileSync(path, 'utf8');
  let detail = 'no boolean "paused"';
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && typeof (value as { paused?: unknown }).paused === 'boolean') {
      return { paused: (value as { paused: boolean }).paused };
    }
  } catch (error) {
    detail = `not JSON: ${errorMessage(error)}`;
  }
  return {
    paused: true,
    problem: `${path}: expected {"paused": true|false} (${detail}), got ${quote(text)}; the agenda stays paused until it is resumed`,
  };
}

export function writePaused(projectDir: string, paused: boolean): void {
  const path = configPath(projectDir);
  ensureStateDir(dirname(path));
  writeFileAtomic(path, `${JSON.stringify({ paused }, null, 2)}\n`);
}
