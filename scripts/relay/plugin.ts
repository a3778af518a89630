// The relay loads its own copy of the built plugin: a relayed session lasts as long as people take
// to answer, and a rebuild of dist/ meanwhile (which deletes it first) must not pull the plugin out
// from under the server. The copy resolves its packages through a link to the repo's node_modules.
import { cpSync, existsSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../../test/support/opencode-sandbox.js';

/** Copies dist/ and package.json to `<target>/`, links node_modules, and returns the entry's file URL. */
export function snapshotPlugin(target: string): string {
  const dist = join(projectRoot, 'dist');
  if (!existsSync(join(dist, 'index.js'))) throw new Error(`Expected the built plugin at ${dist}/index.js: run \`npm run build\` first (npm run relay does).`);
  rmSync(target, { recursive: true, force: true });
  cpSync(dist, join(target, 'dist'), { recursive: true });
  cpSync(join(projectRoot, 'package.json'), join(target, 'package.json'));
  symlinkSync(join(projectRoot, 'node_modules'), join(target, 'node_modules'), 'dir');
  return pathToFileURL(join(target, 'dist', 'index.js')).href;
}
