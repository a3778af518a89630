// Packs this project with `npm pack`, as a release would, for a test to publish (registry.ts) and
// install by name.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from './opencode-sandbox.js';

const execFileAsync = promisify(execFile);

export type PackedProject = {
  name: string;
  version: string;
  /** Absolute path of the .tgz. */
  tarball: string;
  /** Paths inside the package, as `npm pack` listed them (e.g. `dist/index.js`). */
  files: string[];
  /** Bytes of the .tgz, and of its files unpacked. */
  size: number;
  unpackedSize: number;
  /** Removes the temp dir holding the tarball. */
  remove(): void;
};

/**
 * `npm pack` of the project as it is on disk (dist must have been built: `npm test` builds it).
 * Fails with a clear message when dist is missing or older than src.
 */
export async function packProject({ timeoutMs = 60_000 } = {}): Promise<PackedProject> {
  assertDistFresh();
  const dir = mkdtempSync(join(tmpdir(), 'orca-e2e-pack-'));
  try {
    // --ignore-scripts: packing must not rebuild or run anything; --offline: it needs no registry.
    const { stdout: out } = await execFileAsync('npm', ['pack', '--json', '--ignore-scripts', '--offline', '--pack-destination', dir], {
      cwd: projectRoot,
      encoding: 'utf8',
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
    });
    const [info] = JSON.parse(out.slice(out.indexOf('['))) as {
      name: string;
      version: string;
      filename: string;
      size: number;
      unpackedSize: number;
      files: { path: string }[];
    }[];
    if (!info) throw new Error(`Expected \`npm pack --json\` to describe one tarball, got: ${out}`);
    const tarball = join(dir, info.filename);
    if (!existsSync(tarball)) throw new Error(`Expected npm pack to write ${tarball}.`);
    return {
      name: info.name,
      version: info.version,
      tarball,
      files: info.files.map((f) => f.path),
      size: info.size,
      unpackedSize: info.unpackedSize,
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Every src/**.ts must have a dist/**.js at least as new (every other src file a copy at least as
 * new), and every dist/**.js a source; otherwise the tarball would ship stale code.
 */
export function assertDistFresh(): void {
  const src = join(projectRoot, 'src');
  const dist = join(projectRoot, 'dist');
  if (!existsSync(join(dist, 'index.js'))) {
    throw new Error(`Expected ${join(dist, 'index.js')}; build first with \`npm run build\` (\`npm test\` does).`);
  }
  const stale: string[] = [];
  for (const file of walk(src)) {
    if (file.endsWith('.d.ts')) continue;
    // TypeScript compiles to .js; anything else (the plan viewer's page, src/ui/static) is copied as it is.
    const out = join(dist, relative(src, file)).replace(/\.ts$/, '.js');
    if (!existsSync(out) || statSync(out).mtimeMs < statSync(file).mtimeMs) stale.push(relative(projectRoot, file));
  }
  for (const file of walk(dist)) {
    if (!file.endsWith('.js')) continue;
    const source = join(src, relative(dist, file));
    if (!existsSync(source.replace(/\.js$/, '.ts')) && !existsSync(source)) stale.push(`${relative(projectRoot, file)} (no source left: delete dist/ and rebuild)`);
  }
  if (stale.length > 0) {
    throw new Error(`Expected dist/ to be built from the current src/ (run \`npm run build\`), but it is stale: ${stale.join(', ')}`);
  }
}

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}
