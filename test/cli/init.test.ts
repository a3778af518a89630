import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseOptions } from '../../src/config/options.js';
import { runCli, tempProject, type Project } from './fixtures.js';

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
    expect(first.stdout).toContain('added opencode-orca-statecharts to the plugins of opencode.jsonc\n');
    const edited = read('opencode.jsonc');
    // Exactly one line more: comments, trailing commas and indentation untouched.
    expect(edited).toBe(JSONC.replace('// the linter\n', '// the linter\n        "opencode-orca-statecharts",\n'));
    expect(parse(edited, [], { allowTrailingComma: true }).plugin).toEqual(['some-other-plugin', 'opencode-orca-statecharts']);
    expect(existsSync(join(project.dir, 'opencode.json'))).toBe(false);

    const second = await init();
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('opencode.jsonc already loads opencode-orca-statecharts (opencode-orca-statecharts): left unchanged\n');
    expect(second.stdout).toContain('.opencode/orca.jsonc already exists: left unchanged\n');
    expect(read('opencode.jsonc')).toBe(edited);
  });

  it('should add a plugin array to an opencode.json that has none', async () => {
    writeFileSync(join(project.dir, 'opencode.json'), '{\n\t"model": "x/y"\n}\n');
    expect((await init()).code).toBe(0);
    const edited = read('opencode.json');
    expect(JSON.parse(edited)).toEqual({ model: 'x/y', plugin: ['opencode-orca-statecharts'] });
    expect(edited).toBe('{\n\t"model": "x/y",\n\t"plugin": ["opencode-orca-statecharts"]\n}\n');
  });

  it('should create opencode.json when the project has no config', async () => {
    const { code, stdout } = await init();
    expect(code).toBe(0);
    expect(stdout).toContain('created opencode.json loading opencode-orca-statecharts\n');
    expect(JSON.parse(read('opencode.json'))).toEqual({ $schema: 'https://opencode.ai/config.json', plugin: ['opencode-orca-statecharts'] });
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

  it('should write a starter .opencode/orca.jsonc that says how it is read, with valid options and a schema', async () => {
    await init();
    const starter = read('.opencode/orca.jsonc');
    expect(starter).toMatch(/Read when OpenCode starts, over ~\/\.config\/opencode\/orca\.jsonc/);
    for (const key of ['agents', 'concurrency', 'max_attempts', 'review', 'breakers', 'budget', 'timeouts', 'hooks', 'approval', 'deviation', 'questions']) {
      expect(starter).toContain(`// "${key}":`);
    }
    const errors: unknown[] = [];
    const { $schema, ...options } = parse(starter, errors as never);
    expect(errors).toEqual([]);
    expect($schema).toMatch(/^https:\/\/unpkg\.com\/opencode-orca-statecharts@\d+\.\d+\.\d+\/schema\/orca\.schema\.json$/);
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
      hitl: { auto: { approval: 'approve', deviation: 'stop', budget: 'stop', questions: 'first_option' } },
    });
  });
});
