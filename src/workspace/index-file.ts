import { readFile } from 'node:fs/promises';

/** An index file's bytes, or undefined when it cannot be read (then git is asked). */
export function readIndexFile(indexFile: string): Promise<Buffer | undefined> {
  return readFile(indexFile).catch(() => undefined);
}

/**
 * The tree `git write-tree` would print for an index, read from the index itself: its cache-tree
 * extension (`TREE`) holds the root tree's id while it is valid, and git keeps it so: an `add` that
 * changes an entry invalidates the root in the same write. Undefined when the root is not valid or the
 * index is in a form this reader does not take (split index, unknown version): then git is asked.
 * `oidBytes` is 20 (SHA-1) or 32 (SHA-256). Format: gitformat-index(5).
 */
export function rootTreeOf(bytes: Buffer, oidBytes: number): string | undefined {
  const tree = extensionsOf(bytes, oidBytes)?.get('TREE');
  return tree ? rootOf(tree, oidBytes) : undefined;
}

/**
 * Whether an index has an entry at or under one of `paths` (repository-relative, no trailing slash):
 * false only when it was read whole and has none. A split index is never read (unknown).
 */
export function holdsAny(bytes: Buffer, paths: readonly string[], oidBytes: number): boolean | undefined {
  const wanted = paths.map((path) => Buffer.from(path));
  let found = false;
  const end = entriesEnd(bytes, oidBytes, (names, start, length) => {
    if (!found) found = wanted.some((path) => isAtOrUnder(names, start, length, path));
  });
  return end === undefined || !extensionsOf(bytes, oidBytes, end) ? undefined : found;
}

/**
 * Where the entries of an index end (its extensions begin), each entry's name given to `onName` when
 * asked; undefined when the bytes are no index this reader takes (gitformat-index(5): versions 2 to 4).
 */
function entriesEnd(bytes: Buffer, oidBytes: number, onName?: (names: Buffer, start: number, length: number) => void): number | undefined {
  if (bytes.length < HEADER + oidBytes || bytes.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const end = bytes.length - oidBytes; // the checksum
  let at = HEADER;
  // The previous name (v4), built only when names are asked for (in one buffer, grown as needed); its length always.
  let previous = Buffer.alloc(onName ? 4096 : 0);
  let previousLength = 0;
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
      if (nul < 0 || nul >= end || dropped > previousLength) return undefined;
      const kept = previousLength - dropped;
      previousLength = kept + (nul - nameAt);
      if (onName) {
        if (previousLength > previous.length) previous = Buffer.concat([previous.subarray(0, kept)], previousLength * 2);
        for (let i = nameAt; i < nul; i++) previous[kept + i - nameAt] = bytes[i]!; // short: cheaper than a native copy
        onName(previous, 0, previousLength);
      }
      at = nul + 1;
    } else {
      // The name (its length in the flags, or a NUL when it is 0xFFF or more), padded with 1 to 8 NULs to a multiple of 8.
      const short = flags & NAME_MASK;
      const length = short < NAME_MASK ? short : bytes.indexOf(0, nameAt) - nameAt;
      if (length < 0) return undefined;
      onName?.(bytes, nameAt, length);
      const entry = nameAt + length - at;
      at += (entry + 8) & ~7;
    }
    if (at > end) return undefined;
  }
  return at;
}

/** The name at `start` is `path` or under it; byte by byte, most names differ at once. */
function isAtOrUnder(names: Buffer, start: number, length: number, path: Buffer): boolean {
  if (length < path.length || (length > path.length && names[start + path.length] !== SLASH)) return false;
  for (let i = 0; i < path.length; i++) if (names[start + i] !== path[i]) return false;
  return true;
}

/**
 * An index's extensions by signature (their data), read after its entries (`from`, when known); undefined
 * when they run past the checksum, or for a split index (`link`), whose entries are in another file.
 */
function extensionsOf(bytes: Buffer, oidBytes: number, from = entriesEnd(bytes, oidBytes)): Map<string, Buffer> | undefined {
  if (from === undefined) return undefined;
  const end = bytes.length - oidBytes; // the checksum
  const found = new Map<string, Buffer>();
  for (let at = from; at + 8 <= end; ) {
    const data = at + 8;
    const size = bytes.readUInt32BE(at + 4);
    if (data + size > end) return undefined;
    found.set(bytes.toString('latin1', at, at + 4), bytes.subarray(data, data + size));
    at = data + size;
  }
  return found.has('link') ? undefined : found;
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
const SLASH = 0x2f;
