// The path a user takes once the package is published, with a real registry server (verdaccio on
// 127.0.0.1, no uplinks) standing in for the public one: the package is packed and published with
// `npm publish`, its runtime dependencies are published from this project's node_modules, and npm
// is pointed at the registry the way a user would (~/.npmrc). Then `npx opencode-orca-statecharts
// init` adds the plugin to the project's opencode.json by name, and the real `opencode` binary
// installs that name from the registry itself and loads the agents.
//
// How OpenCode 1.18.33 installs `"plugin": ["NAME"]` (read from the binary, seen here):
//   Npm.add("NAME@latest") → dir = $XDG_CACHE_HOME/opencode/packages/NAME@latest; if
//   dir/node_modules/NAME exists it is used as is, else @npmcli/arborist installs NAME@latest into
//   dir with npm's own configuration (@npmcli/config: npm_config_* variables, then ~/.npmrc), so
//   the registry a user set with `npm config set registry` is the one it asks. The entry comes
//   from the package's `exports["./server"]`, else `main`.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, type OpencodeServer } from '../support/opencode-server.js';
import { createSandbox, projectRoot, xdgDirs, type Sandbox } from '../support/opencode-sandbox.js';
import { packProject, type PackedProject } from '../support/pack-install.js';
import { authTokenOption, publishInstalled, runNpm, runtimeDependencyTree, startRegistry, writeUserNpmrc, type LocalRegistry } from '../support/registry.js';
import { isForAgent, lastToolResult, startScriptedModel, callTool, text, type ScriptedModel } from '../support/scripted-model.js';

const PACKAGE = 'opencode-orca-statecharts';
const ORCA_MARKER = '<!-- orca-agent:orca -->';
const SPECIALISTS = ['coder', 'tester', 'reviewer', 'researcher', 'document-writer', 'architect'];

let packed: PackedProject;
let registry: LocalRegistry;
let model: ScriptedModel;
let sandbox: Sandbox;
let server: OpencodeServer;
let initOutput: string;
let publishedDependencies: string[];

beforeAll(async () => {
  const t0 = Date.now();
  const lap = (what: string) => console.info(`[package] ${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  // npm pack and verdaccio's start-up side by side.
  const [pack, start] = await Promise.allSettled([packProject(), startRegistry()]);
  if (pack.status === 'fulfilled') packed = pack.value; // kept whatever happened to the other, so afterAll cleans up
  if (start.status === 'fulfilled') registry = start.value;
  if (pack.status === 'rejected') throw pack.reason;
  if (start.status === 'rejected') throw start.reason;
  console.info(`[package] ${packed.name}-${packed.version}.tgz: ${packed.size} bytes, ${packed.files.length} files (${packed.unpackedSize} bytes unpacked)`);
  lap(`packed, and verdaccio listening on ${registry.url}`);
  sandbox = createSandbox({});
  const token = await registry.addUser();
  writeUserNpmrc(sandbox.homeDir, registry);
  const dependencies = runtimeDependencyTree();
  publishedDependencies = dependencies.map((d) => `${d.name}@${d.version}`);
  await Promise.all([
    publishInstalled(registry, token, dependencies),
    runNpm('npm', ['publish', packed.tarball, authTokenOption(registry, token)], { cwd: sandbox.homeDir, homeDir: sandbox.homeDir, timeoutMs: 90_000 }),
  ]);
  lap(`${packed.name} and its ${dependencies.length} runtime dependencies published`);
  model = await startScriptedModel({
    respond(req) {
      if (!isForAgent(req, ORCA_MARKER)) throw new Error(`only Orca should be asked; system starts: ${req.system.slice(0, 120)}`);
      return lastToolResult(req) ? text('No plans yet.') : callTool('orca_list_plans', {});
    },
  });
  // The server starts while npx runs; the project's instance (which reads opencode.json and installs
  // the plugin) boots only on the first request for it, after init. No plugin in the test's own
  // config: the only thing that loads Orca is the opencode.json init wrote.
  const [init, started] = await Promise.allSettled([
    runNpm('npx', ['--yes', PACKAGE, 'init'], { cwd: sandbox.projectDir, homeDir: sandbox.homeDir, timeoutMs: 150_000 }),
    startOpencode({ modelUrl: model.url, homeDir: sandbox.homeDir, projectDir: sandbox.projectDir, boot: false }),
  ]);
  if (started.status === 'fulfilled') server = started.value; // so afterAll stops it whatever happened to npx
  if (init.status === 'rejected') throw init.reason;
  if (started.status === 'rejected') throw started.reason;
  initOutput = init.value.stdout;
  lap('npx opencode-orca-statecharts init done');
  const agents = await server.fetch('/agent', { timeoutMs: 150_000 }); // boots the instance, which installs the plugin
  expect(agents.status).toBe(200);
  lap('opencode installed the plugin and booted');
  const session = await server.client.session.create({ title: 'package e2e' });
  await server.client.session.prompt({
    sessionID: session.data!.id,
    agent: 'orca',
    parts: [{ type: 'text', text: 'Which plans are there?' }],
  });
  lap('Orca answered');
}, 420_000);

afterAll(async () => {
  await server?.stop();
  await model?.close();
  await registry?.close();
  if (sandbox?.rootDir) rmSync(sandbox.rootDir, { recursive: true, force: true });
  packed?.remove();
});

describe('the package published to a registry and installed by name', () => {
  reportOnFailure(() => ({ server, model }));

  it('should pack the built entry and every built file, and no tests, bench, scripts, sources or source maps', () => {
    expect(packed.name).toBe(PACKAGE);
    expect(packed.files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js']));
    const built = readdirSync(join(projectRoot, 'dist'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.endsWith('.map'))
      .map((entry) => join(entry.parentPath, entry.name).slice(projectRoot.length).replace(/^\//, ''));
    expect(built).toContain('dist/index.js');
    expect(packed.files).toEqual(expect.arrayContaining(built));
    expect(packed.files.filter((f) => f.startsWith('statecharts/')).length).toBeGreaterThan(0);
    expect(packed.files).toContain('schema/orca.schema.json');
    // The reference the README and orca doctor's hints link to ships with it.
    expect(packed.files).toEqual(expect.arrayContaining(['docs/configuration.md', 'docs/plan-files.md']));
    expect(packed.files.filter((f) => /^(src|test|bench|scripts|node_modules)\//.test(f) || f.endsWith('.map'))).toEqual([]);
  });

  it('should have npx install the package from the registry and init write its name, not a file URL, into opencode.json', () => {
    expect(initOutput).toContain(`created opencode.json loading ${PACKAGE}\n`);
    expect(initOutput).not.toContain('file://');
    const config = JSON.parse(readFileSync(join(sandbox.projectDir, 'opencode.json'), 'utf8'));
    expect(config.plugin).toEqual([PACKAGE]);
    expect(existsSync(join(sandbox.projectDir, '.opencode', 'orca.jsonc'))).toBe(true);
    // npx took it from the registry npm was pointed at, and only from there.
    const npx = join(sandbox.homeDir, '.npm', '_npx');
    const locks = readdirSync(npx).map((hash) => JSON.parse(readFileSync(join(npx, hash, 'package-lock.json'), 'utf8')));
    const resolved = locks.flatMap((lock) => Object.values(lock.packages as Record<string, { resolved?: string }>).flatMap((p) => p.resolved ?? []));
    expect(resolved).toContain(`${registry.url}${PACKAGE}/-/${PACKAGE}-${packed.version}.tgz`);
    expect(resolved.filter((url) => !url.startsWith(registry.url))).toEqual([]);
  });

  it('should have OpenCode install the plugin and its dependencies from that registry into its package cache', () => {
    const installDir = join(xdgDirs(sandbox.homeDir).XDG_CACHE_HOME, 'opencode', 'packages', `${PACKAGE}@latest`);
    const lock = JSON.parse(readFileSync(join(installDir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string; version?: string; optional?: boolean }> };
    expect(lock.packages[`node_modules/${PACKAGE}`]).toMatchObject({
      version: packed.version,
      resolved: `${registry.url}${PACKAGE}/-/${PACKAGE}-${packed.version}.tgz`,
    });
    // Exactly the runtime dependencies this project has installed, every one from the registry; the
    // rest are optional ones for other platforms, which the registry does not have, recorded as such.
    const entries = Object.entries(lock.packages).filter(([path]) => path.startsWith('node_modules/'));
    const installed = entries.filter(([, p]) => p.version !== undefined);
    expect(entries.filter(([, p]) => p.version === undefined && !p.optional)).toEqual([]);
    expect(installed.filter(([, p]) => !p.resolved?.startsWith(registry.url))).toEqual([]);
    const names = installed.map(([path, p]) => `${path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)}@${p.version}`);
    expect([...new Set(names)].sort()).toEqual([`${PACKAGE}@${packed.version}`, ...publishedDependencies].sort());
    expect(registry.requests()).toEqual(expect.arrayContaining([`200 GET /${PACKAGE}`]));
    expect(server.pluginErrors()).toEqual([]);
    expect(server.logs()).toContain(`orca loaded for ${sandbox.projectDir}`);
  });

  it('should list orca, the planner and the six specialists on GET /agent', async () => {
    const res = await server.fetch('/agent');
    expect(res.status).toBe(200);
    const names = ((await res.json()) as { name: string }[]).map((agent) => agent.name);
    expect(names).toEqual(expect.arrayContaining(['orca', 'planner', ...SPECIALISTS]));
  });

  it("should offer Orca its three tools, and answer Orca's orca_list_plans call", () => {
    const orca = model.chatRequests().filter((req) => isForAgent(req, ORCA_MARKER));
    expect(orca.length).toBe(2);
    for (const req of orca) expect([...req.tools].sort()).toEqual(['orca_ask_planner', 'orca_describe_plan', 'orca_list_plans']);
    const answer = lastToolResult(orca[1]!);
    expect(answer?.name).toBe('orca_list_plans');
    expect(JSON.parse(answer!.content)).toMatchObject({ total: 0, showing: 'none of 0', plans: [] });
    expect(model.errors()).toEqual([]);
  });
});
