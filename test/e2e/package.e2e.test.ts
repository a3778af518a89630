// The packed plugin, loaded by the real opencode binary BY PACKAGE NAME, as a user's
// `"plugin": ["opencode-orca-statecharts"]` loads it. No network: the tarball from `npm pack`
// is installed where OpenCode 1.18 keeps npm plugins ($XDG_CACHE_HOME/opencode/packages/NAME@latest,
// see pack-install.ts), and every npm request OpenCode might make goes to a local registry that
// knows no package and records what it was asked.
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOnFailure } from '../support/failure-report.js';
import { startOpencode, waitFor, type OpencodeServer } from '../support/opencode-server.js';
import { createSandbox, pluginPackageVersion, projectRoot, type Sandbox } from '../support/opencode-sandbox.js';
import {
  installIntoConfigDir,
  installIntoOpencodeCache,
  offlineNpmEnv,
  packProject,
  startFakeRegistry,
  type CachedInstall,
  type FakeRegistry,
  type PackedProject,
} from '../support/pack-install.js';
import { isForAgent, startScriptedModel, text, type ScriptedModel } from '../support/scripted-model.js';

const PACKAGE = 'opencode-orca-statecharts';
const ORCA_MARKER = '<!-- orca-agent:orca -->';
const SPECIALISTS = ['coder', 'tester', 'reviewer', 'researcher', 'document-writer', 'architect'];

let packed: PackedProject;

beforeAll(() => {
  const started = Date.now();
  packed = packProject();
  console.info(`[package] npm pack in ${Date.now() - started} ms: ${packed.files.length} files`);
}, 30_000);

afterAll(() => packed?.remove());

describe('the packed plugin loaded by package name', () => {
  let registry: FakeRegistry;
  let model: ScriptedModel;
  let sandbox: Sandbox;
  let install: CachedInstall;
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    registry = await startFakeRegistry();
    model = await startScriptedModel({
      respond(req) {
        if (isForAgent(req, ORCA_MARKER)) return text('Orca here.');
        throw new Error(`only Orca should be asked; system starts: ${req.system.slice(0, 120)}`);
      },
    });
    const started = Date.now();
    sandbox = createSandbox({});
    install = installIntoOpencodeCache(packed, sandbox.homeDir);
    server = await startOpencode({
      modelUrl: model.url,
      homeDir: sandbox.homeDir,
      projectDir: sandbox.projectDir,
      config: { plugin: [PACKAGE] },
      env: offlineNpmEnv(registry),
    });
    const session = await server.client.session.create({ title: 'package e2e' });
    await server.client.session.prompt({
      sessionID: session.data!.id,
      agent: 'orca',
      parts: [{ type: 'text', text: 'Which tools do you have?' }],
    });
    console.info(`[package] installed, served by name and prompted in ${Date.now() - started} ms`);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    await registry?.close();
    if (sandbox?.rootDir) rmSync(sandbox.rootDir, { recursive: true, force: true });
  });

  it('should pack the built entry, every dist file and the statecharts, and no sources or tests', () => {
    expect(packed.name).toBe(PACKAGE);
    const manifest = JSON.parse(readFileSync(join(install.packageDir, 'package.json'), 'utf8'));
    // OpenCode 1.18 takes an npm plugin's entry from exports["./server"], else from "main".
    expect(manifest.main).toBe('./dist/index.js');
    expect(packed.files).toEqual(expect.arrayContaining(['package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/plugin.js']));
    const built = readdirSync(join(projectRoot, 'dist'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(projectRoot.length).replace(/^\//, ''));
    expect(built).toContain('dist/index.js');
    expect(packed.files).toEqual(expect.arrayContaining(built));
    expect(packed.files.filter((f) => f.startsWith('statecharts/')).length).toBeGreaterThan(0);
    expect(packed.files.filter((f) => /^(src|test|scripts|node_modules)\//.test(f))).toEqual([]);
    expect(install.linkedDependencies).toEqual(expect.arrayContaining(['@opencode-ai/plugin', 'xstate', 'zod']));
  });

  it("should load it from OpenCode's package cache without asking any registry", () => {
    // The only copy of the package anywhere OpenCode can reach is the one in its cache.
    expect(install.installDir).toBe(join(sandbox.homeDir, '.cache', 'opencode', 'packages', `${PACKAGE}@latest`));
    expect(lstatSync(install.packageDir).isDirectory()).toBe(true);
    expect(existsSync(join(sandbox.projectDir, '.opencode', 'node_modules', PACKAGE))).toBe(false);
    // A fallback to installing (from the registry) would have asked the registry and left a lockfile.
    expect(registry.requests).toEqual([]);
    expect(existsSync(join(install.installDir, 'package-lock.json'))).toBe(false);
    expect(server.pluginErrors()).toEqual([]);
    expect(server.logs()).toContain(`orca loaded for ${sandbox.projectDir}`);
  });

  it('should offer Orca exactly orca_ask_planner, orca_list_plans and orca_describe_plan', () => {
    const orca = model.chatRequests().filter((req) => isForAgent(req, ORCA_MARKER));
    expect(orca.length).toBeGreaterThan(0);
    for (const req of orca) expect([...req.tools].sort()).toEqual(['orca_ask_planner', 'orca_describe_plan', 'orca_list_plans']);
    expect(model.errors()).toEqual([]);
  });

  it('should list orca, the planner and the six specialists on GET /agent', async () => {
    const res = await server.fetch('/agent');
    expect(res.status).toBe(200);
    const names = ((await res.json()) as { name: string }[]).map((agent) => agent.name);
    expect(names).toEqual(expect.arrayContaining(['orca', 'planner', ...SPECIALISTS]));
  });
});

// Control: installed the way `npm install` would put it in a config dir, the package is NOT found
// there. OpenCode goes to the registry for NAME@latest instead, which proves the test above can
// only pass through the package cache.
describe('the packed plugin installed only in <project>/.opencode/node_modules', () => {
  let registry: FakeRegistry;
  let model: ScriptedModel;
  let sandbox: Sandbox;
  let server: OpencodeServer;
  reportOnFailure(() => ({ server, model }));

  beforeAll(async () => {
    registry = await startFakeRegistry();
    model = await startScriptedModel({ respond: () => text('unused') });
    sandbox = createSandbox({});
    installIntoConfigDir(packed, join(sandbox.projectDir, '.opencode'), pluginPackageVersion());
    server = await startOpencode({
      modelUrl: model.url,
      homeDir: sandbox.homeDir,
      projectDir: sandbox.projectDir,
      config: { plugin: [PACKAGE] },
      env: offlineNpmEnv(registry),
      boot: false, // the plugin is expected to fail: boot by hand and read the failure
    });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await model?.close();
    await registry?.close();
    if (sandbox?.rootDir) rmSync(sandbox.rootDir, { recursive: true, force: true });
  });

  it('should not load it from there but try to install NAME@latest from the registry', async () => {
    const res = await server.fetch('/agent');
    expect(res.status).toBe(200);
    const errors = await waitFor(() => (server.pluginErrors().length > 0 ? server.pluginErrors() : undefined), {
      description: 'the plugin load failure',
    });
    expect(errors.join('\n')).toContain(`Failed to install plugin ${PACKAGE}@latest`);
    expect(registry.requests).toContain(`GET /${PACKAGE}`);
    const names = ((await res.json()) as { name: string }[]).map((agent) => agent.name);
    expect(names).not.toContain('orca');
  });
});
