import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';

/**
 * Write a file so that a crash at any moment leaves either the old or the new content: write a
 * temp file beside it, fsync, rename over. Synchronous so a macrostep's save is complete before
 * the next event is processed.
 */
export function writeFileAtomic(path: string, content: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}
