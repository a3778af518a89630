import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/workspace/write-atomic.js';
import { tempDirs } from './repo.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('writeFileAtomic', () => {
  it('should create the folders, replace the file and leave no temporary file', async () => {
    const dir = dirs.make();
    const path = join(dir, 'a', 'b', 'x.patch');
    await writeFileAtomic(path, 'one');
    await writeFileAtomic(path, Buffer.from('two'));
    expect(readFileSync(path, 'utf8')).toBe('two');
    expect(readdirSync(join(dir, 'a', 'b'))).toEqual(['x.patch']);
  });

  it('should reject when the folder cannot be made', async () => {
    const dir = dirs.make();
    writeFileSync(join(dir, 'file'), '');
    await expect(writeFileAtomic(join(dir, 'file', 'x'), 'y')).rejects.toThrow(/EEXIST|ENOTDIR/);
  });
});
