import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { parseOptions } from '../../src/config/options.js';
import { inNpxCache, installSource, packageRoot, pluginSpec } from '../../src/cli/package-info.js';
import { runCli, tempProject, type Project } from './fixtures.js';

/** The tests run from a clone: init writes the file URL of its built plugin, never the npm name. */
const SPEC = pathToFileURL(join(packageRoot, 'dist', 'index.js')).href;

let project: Project;
beforeEach(() => {
  project = tempProject();
});
afterEach(() => project.remove());

const init = () => runCli(['init', '--dir', project.dir]);
const read = (name: string) => readFileSync(join(project.dir, name), 'utf8');

const JSONC = `{
    // my model, keep it
    "$schema": "https://opencode.ai/config.json",
    "model": "anthropic/claude", /* inline note */
    "plugin": [
        "some-other-plugin", // the linter
    ],
}
`;

describe('orca init', () => {
  it('should add the plugin to opencode.jsonc keeping its comments and formatting, and be idempotent', async () => {
    writeFileSync(join(project.dir, 'opencode.jsonc'), JSONC);
    const first = await init();
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`added ${SPEC} to the plugins of opencode.jsonc\n`);
    expect(first.stdout).toContain('opencode.jsonc sets "model": anthropic/claude\n');
    const edited = read('opencode.jsonc');
    // Exactly one line more: comments, trailing commas and indentation untouched.
    expect(edited).toBe(JSONC.replace('// the linter\n', `// the linter\n        "${SPEC}",\n`));
    expect(parse(edited, [], { allowTrailingComma: true }).plugin).toEqual(['some-other-plugin', SPEC]);
    expect(existsSync(join(project.dir, 'opencode.json'))).toBe(false);

    const second = await init();
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`opencode.jsonc already loads opencode-orca-statecharts (${SPEC}): left unchanged\n`);
    expect(second.stdout).toContain('.opencode/orca.jsonc already exists: left unchanged\n');
    expect(read('opencode.jsonc')).toBe(edited);
  });

  it('should add a plugin array to an opencode.json that has none', async () => {
    writeFileSync(join(project.dir, 'opencode.json'), '{\n\t"model": "x/y"\n}\n');
    expect((await init()).code).toBe(0);
    const edited = read('opencode.json');
    expect(JSON.parse(edited)).toEqual({ model: 'x/y', plugin: [SPEC] });
    expect(edited).toBe(`{\n\t"model": "x/y",\n\t"plugin": ["${SPEC}"]\n}\n`);
  });

  it('should create opencode.json when the project has no config', async () => {
    const { code, stdout } = await init();
    expect(code).toBe(0);
    expect(stdout).toContain(`created opencode.json loading ${SPEC}\n`);
    expect(stdout).toContain('is not installed from npm here, so OpenCode could not load it by name');
    expect(stdout).toContain('! no OpenCode config sets "model"');
    expect(JSON.parse(read('opencode.json'))).toEqual({ $schema: 'https://opencode.ai/config.json', plugin: [SPEC] });
  });

  it('should count a plugin entry with options, and one in .opencode/opencode.json, as present', async () => {
    const tuple = '{ "plugin": [["opencode-orca-statecharts@0.1.0", { "max_attempts": 3 }]] }\n';
    writeFileSync(join(project.dir, 'opencode.json'), tuple);
    expect((await init()).stdout).toContain('opencode.json already loads opencode-orca-statecharts (opencode-orca-statecharts@0.1.0)');
    expect(read('opencode.json')).toBe(tuple);

    const other = tempProject();
    try {
      mkdirSync(join(other.dir, '.opencode'), { recursive: true });
      writeFileSync(join(other.dir, '.opencode', 'opencode.json'), '{ "plugin": ["file:///opt/opencode-orca-statecharts/dist/index.js"] }');
      const { stdout } = await runCli(['init', '--dir', other.dir]);
      expect(stdout).toContain('.opencode/opencode.json already loads opencode-orca-statecharts (file:///opt/opencode-orca-statecharts/dist/index.js)');
      expect(existsSync(join(other.dir, 'opencode.json'))).toBe(false);
    } finally {
      other.remove();
    }
  });

  it('should refuse to edit a config that is not valid JSONC', async () => {
    writeFileSync(join(project.dir, 'opencode.json'), '{ "plugin": [ }');
    const { code, stderr } = await init();
    expect(code).toBe(1);
    expect(stderr).toMatch(/^orca: opencode\.json is not valid JSONC \(ValueExpected at line 1, column 15\); fix it, then run orca init again\.\n$/);
    expect(read('opencode.json')).toBe('{ "plugin": [ }');
  });

  it('should write "model" when asked, next to the plugin, and refuse to replace a different one', async () => {
    const { code, stdout } = await runCli(['init', '--dir', project.dir, '--model', 'anthropic/claude-sonnet-4-5']);
    expect(code).toBe(0);
    expect(stdout).toContain('set "model": anthropic/claude-sonnet-4-5 in opencode.json\n');
    expect(JSON.parse(read('opencode.json'))).toMatchObject({ model: 'anthropic/claude-sonnet-4-5', plugin: [SPEC] });
    expect((await runCli(['init', '--dir', project.dir, '--model', 'anthropic/claude-sonnet-4-5'])).stdout).toContain('opencode.json already sets "model": anthropic/claude-sonnet-4-5\n');
    const other = await runCli(['init', '--dir', project.dir, '--model', 'openai/gpt-5']);
    expect(other.code).toBe(1);
    expect(other.stderr).toBe('orca: opencode.json already sets "model" to "anthropic/claude-sonnet-4-5": change it there by hand if you want "openai/gpt-5".\n');
    const bad = await runCli(['init', '--dir', project.dir, '--model', 'gpt-5']);
    expect([bad.code, bad.stderr]).toEqual([2, 'orca: --model must be "<provider>/<model>" as opencode models lists them, got "gpt-5".\n']);
  });

  it('should name the npm package only for a copy installed from npm, and the built file of any other copy', () => {
    const root = mkdtempSync(join(tmpdir(), 'orca-install-'));
    try {
      const copy = join(root, 'node_modules', 'opencode-orca-statecharts');
      mkdirSync(copy, { recursive: true });
      const lock = (resolved: string) =>
        writeFileSync(join(root, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { 'node_modules/opencode-orca-statecharts': { resolved } } }));
      expect(installSource(copy)).toBe('local'); // no lockfile: a global install, say
      lock('https://registry.npmjs.org/opencode-orca-statecharts/-/opencode-orca-statecharts-0.1.0.tgz');
      expect([installSource(copy), pluginSpec(copy)]).toEqual(['npm', 'opencode-orca-statecharts']);
      lock('file:../opencode-orca-statecharts-0.1.0.tgz');
      expect([installSource(copy), pluginSpec(copy)]).toEqual(['local', pathToFileURL(join(copy, 'dist', 'index.js')).href]);
      expect(installSource(packageRoot)).toBe('clone');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('should take a registry copy from npm\'s hidden lockfile too, and from an entry saved without its registry URL', () => {
    const root = mkdtempSync(join(tmpdir(), 'orca-install-'));
    try {
      const copy = join(root, 'node_modules', 'opencode-orca-statecharts');
      mkdirSync(copy, { recursive: true });
      const write = (path: string, entry: object) =>
        writeFileSync(path, JSON.stringify({ lockfileVersion: 3, packages: { 'node_modules/opencode-orca-statecharts': entry } }));
      const integrity = 'sha512-AAAA';
      // npm install with package-lock=false still keeps node_modules/.package-lock.json (so does npx).
      write(join(root, 'node_modules', '.package-lock.json'), { version: '0.1.0', resolved: 'http://127.0.0.1:4873/opencode-orca-statecharts/-/opencode-orca-statecharts-0.1.0.tgz', integrity });
      expect(installSource(copy)).toBe('npm');
      // package-lock.json wins over it; omit-lockfile-registry-resolved leaves out a registry URL, never a file: one.
      write(join(root, 'package-lock.json'), { version: '0.1.0', integrity });
      expect([installSource(copy), pluginSpec(copy)]).toEqual(['npm', 'opencode-orca-statecharts']);
      write(join(root, 'package-lock.json'), { version: '0.1.0', resolved: 'file:../orca.tgz', integrity });
      expect(installSource(copy)).toBe('local');
      write(join(root, 'package-lock.json'), { resolved: '../orca', link: true });
      expect(installSource(copy)).toBe('local');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("should know a copy in npx's cache, whose file URL npm may take away", () => {
    expect(inNpxCache(join(tmpdir(), 'home', '.npm', '_npx', 'f3e8938007ed6a53', 'node_modules', 'opencode-orca-statecharts'))).toBe(true);
    expect(inNpxCache(join(tmpdir(), 'project', 'node_modules', 'opencode-orca-statecharts'))).toBe(false);
    expect(inNpxCache(packageRoot)).toBe(false);
  });

  it('should write a starter .opencode/orca.jsonc that says how it is read, with valid options and a schema', async () => {
    await init();
    const starter = read('.opencode/orca.jsonc');
    expect(starter).toMatch(/Read when OpenCode starts, over ~\/\.config\/opencode\/orca\.jsonc/);
    for (const key of ['agents', 'concurrency', 'max_attempts', 'review', 'breakers', 'budget', 'timeouts', 'hooks', 'prune', 'approval', 'deviation', 'questions']) {
      expect(starter).toContain(`// "${key}":`);
    }
    const errors: unknown[] = [];
    const { $schema, ...options } = parse(starter, errors as never);
    expect(errors).toEqual([]);
    expect($schema).toBe(pathToFileURL(join(packageRoot, 'schema', 'orca.schema.json')).href);
    expect(parseOptions(options)).toEqual({ hitl: { auto: {} } });
    // Uncommenting every example gives options the plugin accepts.
    const uncommented = starter.replace(/^(\s*)\/\/ ("\w+": [^\n]*?)(,?)\s*(\/\/.*)?$/gm, '$1$2$3');
    const { $schema: _s, ...all } = parse(uncommented, [], { allowTrailingComma: true });
    expect(parseOptions(all)).toEqual({
      agents: { coder: { model: 'anthropic/claude-sonnet-4-5', temperature: 0.2 } },
      concurrency: 4,
      max_attempts: 10,
      review: { enabled: true, agents: ['coder'], max_rounds: 3 },
      breakers: { same_error: 3, max_dispatches: 100, tool_failures: { redirect_at: 3, abort_at: 4 } },
      budget: { max_cost: 2.5, max_tokens: 5_000_000 },
      timeouts: { step_idle_seconds: 600, hook_seconds: 30 },
      hooks: { pre_step: ['npm run lint'], post_step: [] },
      prune: { drafts_after_days: 30, finished_after_days: 90 },
      hitl: { auto: { approval: 'approve', deviation: 'stop', budget: 'stop', questions: 'first_option' } },
    });
  });
});
