import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, unlink } from 'node:fs/promises';

let counter = 0;
/** A temp name beside the file, unique within this process (two writes of one file may overlap). */
const tempOf = (path: string) => `${path}.${process.pid}.${++counter}.tmp`;

/**
 * Write a file so that a crash at any moment leaves either the old or the new content: write a
 * temp file beside it, fsync, rename over. Synchronous: the file is complete when it returns.
 * `fsync: false` keeps the atomicity against a crashed process (the page cache outlives it) but
 * not against a lost machine: for a write whose durable copy follows right behind.
 */
export function writeFileAtomic(path: string, content: string, { fsync = true }: { fsync?: boolean } = {}): void {
  const tmp = tempOf(path);
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, content);
    if (fsync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/**
 * The same, off the event loop (the write and the fsync run in libuv's pool). `commit` is asked,
 * once the temp file is durable, whether this content may still replace the file: a newer write
 * may have landed meanwhile, and then the temp file is dropped. Check and rename happen in one
 * synchronous step, so no later content is ever overwritten by an earlier one.
 */
export async function writeFileAtomicAsync(path: string, content: string, commit: () => boolean): Promise<boolean> {
  const tmp = tempOf(path);
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  if (!commit()) {
    // A temp file that cannot be removed is swept at the next start (PlanStore.sweepTemps).
    await unlink(tmp).catch(() => {});
    return false;
  }
  try {
    renameSync(tmp, path);
  } catch (error) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw error;
  }
  return true;
}
