import { readFile } from 'node:fs/promises';

/**
 * The tree `git write-tree` would print for an index file, read from the index itself: its cache-tree
 * extension (`TREE`) holds the root tree's id while it is valid, and git keeps it so: an `add` that
 * changes an entry invalidates the root in the same write. Undefined when the root is not valid, the
 * file cannot be read, or it is in a form this reader does not take (split index, unknown version):
 * then git is asked. Format: gitformat-index(5).
 */
export async function cachedRootTree(indexFile: string, oidBytes: number): Promise<string | undefined> {
  const bytes = await readFile(indexFile).catch(() => null);
  return bytes ? rootTreeOf(bytes, oidBytes) : undefined;
}

/** cachedRootTree on the file's bytes; `oidBytes` is 20 (SHA-1) or 32 (SHA-256). */
export function rootTreeOf(bytes: Buffer, oidBytes: number): string | undefined {
  if (bytes.length < HEADER + oidBytes || bytes.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const end = bytes.length - oidBytes; // the checksum
  let at = HEADER;
  let previousName = 0;
  for (let count = bytes.readUInt32BE(8); count > 0; count--) {
    const flagsAt = at + STAT_BYTES + oidBytes;
    if (flagsAt + 2 > end) return undefined;
    const flags = bytes.readUInt16BE(flagsAt);
    let nameAt = flagsAt + 2;
    if (flags & EXTENDED) {
      if (version < 3) return undefined;
      nameAt += 2;
    }
    if (version === 4) {
      // The name: how many bytes of the previous one to drop (git's offset varint), then the rest, NUL-ended.
      let byte = bytes[nameAt++] ?? 0;
      let dropped = byte & 0x7f;
      while (byte & 0x80) {
        byte = bytes[nameAt++] ?? 0;
        dropped = ((dropped + 1) << 7) | (byte & 0x7f);
      }
      const nul = bytes.indexOf(0, nameAt);
      if (nul < 0 || nul >= end || dropped > previousName) return undefined;
      previousName = previousName - dropped + (nul - nameAt);
      at = nul + 1;
    } else {
      // The name (its length in the flags, or a NUL when it is 0xFFF or more), padded with 1 to 8 NULs to a multiple of 8.
      const short = flags & NAME_MASK;
      const length = short < NAME_MASK ? short : bytes.indexOf(0, nameAt) - nameAt;
      if (length < 0) return undefined;
      const entry = nameAt + length - at;
      at += (entry + 8) & ~7;
    }
    if (at > end) return undefined;
  }
  while (at + 8 <= end) {
    const signature = bytes.toString('latin1', at, at + 4);
    const size = bytes.readUInt32BE(at + 4);
    const data = at + 8;
    if (data + size > end) return undefined;
    // A split index keeps its entries in another file; its cache tree is not read here.
    if (signature === 'link') return undefined;
    if (signature === 'TREE') return rootOf(bytes.subarray(data, data + size), oidBytes);
    at = data + size;
  }
  return undefined;
}

/** The cache tree's first node is the root: an empty path, NUL, `<entries> <subtrees>\n`, then its id when entries ≥ 0. */
function rootOf(tree: Buffer, oidBytes: number): string | undefined {
  if (tree[0] !== 0) return undefined;
  const newline = tree.indexOf(0x0a, 1);
  if (newline < 0) return undefined;
  const [entries] = tree.toString('latin1', 1, newline).split(' ');
  if (entries === undefined || !/^\d+$/.test(entries) || newline + 1 + oidBytes > tree.length) return undefined;
  return tree.toString('hex', newline + 1, newline + 1 + oidBytes);
}

const HEADER = 12;
/** ctime, mtime (seconds and nanoseconds), dev, ino, mode, uid, gid, size: ten 32-bit numbers. */
const STAT_BYTES = 40;
const EXTENDED = 0x4000;
const NAME_MASK = 0x0fff;
