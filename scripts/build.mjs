// `npm run build`: a clean build of dist/ that other processes never see half-written. tsc writes
// into dist.next/, the viewer's static files are copied beside, then dist/ is swapped for it in
// two renames, so an e2e run or a bench reading dist/ meanwhile loads the old or the new build.
import { cpSync, existsSync, renameSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';

const next = 'dist.next';
const old = 'dist.old';
rmSync(next, { recursive: true, force: true });
rmSync(old, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', next], { stdio: 'inherit' });
cpSync('src/ui/static', `${next}/ui/static`, { recursive: true });
if (existsSync('dist')) renameSync('dist', old);
renameSync(next, 'dist');
rmSync(old, { recursive: true, force: true });
