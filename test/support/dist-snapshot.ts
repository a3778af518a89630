// A private copy of the built plugin for tests that restart servers: every restart loads the
// plugin again, and `npm run build` empties dist/ first, so a build running meanwhile (another
// terminal) would make a restart fail to load it.
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from './opencode-sandbox.js';
import { waitFor } from './wait-for.js';

export async function snapshotDist(prefix = 'orca-dist-'): Promise<{ url: string; remove: () => void }> {
  const dist = join(projectRoot, 'dist');
  const count = () => (existsSync(join(dist, 'index.js')) ? readdirSync(dist, { recursive: true }).length : -1);
  await waitFor(
    async () => {
      const before = count();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return before > 0 && count() === before;
    },
    { timeoutMs: 30_000, intervalMs: 200, description: 'a complete dist/ (run npm run build)' },
  );
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(dist, join(dir, 'dist'), { recursive: true });
  cpSync(join(projectRoot, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  return { url: pathToFileURL(join(dir, 'dist', 'index.js')).href, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
