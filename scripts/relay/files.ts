// The relay's only unbounded waits: for a reply or answer file that a person writes. A file is
// taken once it is non-empty and unchanged across two polls, so an editor saving it in pieces
// is not read half-written (writing elsewhere and `mv`-ing it in is safest).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type RelayDirs = { root: string; requests: string; replies: string; questions: string; answers: string };

export function relayDirs(root: string): RelayDirs {
  const dirs = {
    root,
    requests: join(root, 'requests'),
    replies: join(root, 'replies'),
    questions: join(root, 'questions'),
    answers: join(root, 'answers'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  return dirs;
}

export type WaitOptions = {
  /** Stop waiting (resolve undefined) once this returns true: the request was aborted, the dialog closed. */
  stop?: () => boolean;
  /** No deadline unless set (a person may take hours). */
  timeoutMs?: number;
  /** Content to ignore: a previous version that did not parse, until it changes. */
  ignore?: string;
  intervalMs?: number;
};

export async function waitForFile(path: string, { stop, timeoutMs, ignore, intervalMs = 250 }: WaitOptions = {}): Promise<string | undefined> {
  const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
  let previous: string | undefined;
  for (;;) {
    if (stop?.()) return undefined;
    if (Date.now() >= deadline) throw new Error(`Expected ${path} within ${timeoutMs} ms, but it did not appear.`);
    const content = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (content !== undefined && content.trim() !== '' && content !== ignore && content === previous) return content;
    previous = content;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
