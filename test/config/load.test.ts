import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOrcaConfig } from '../../src/config/load.js';
import { OrcaConfigError } from '../../src/config/options.js';

let root: string;
let project: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'orca-config-'));
  project = join(root, 'project');
  mkdirSync(join(project, '.opencode'), { recursive: true });
  mkdirSync(join(root, 'xdg', 'opencode'), { recursive: true });
  env = { XDG_CONFIG_HOME: join(root, 'xdg'), HOME: root };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const globalFile = (text: string) => writeFileSync(join(root, 'xdg', 'opencode', 'orca.jsonc'), text);
const projectFile = (text: string) => writeFileSync(join(project, '.opencode', 'orca.jsonc'), text);

describe('loadOrcaConfig', () => {
  it('should layer plugin options < global orca.jsonc < project orca.jsonc, merging objects', () => {
    globalFile(`{
      // global defaults
      "$schema": "https://example/orca.schema.json",
      "max_attempts": 5,
      "hitl": { "auto": { "deviation": "stop" } },
      "agents": { "coder": { "model": "a/b", "temperature": 0.1 } },
    }`);
    projectFile('{ "max_attempts": 3, "hitl": { "auto": { "approval": "approve" } }, "agents": { "coder": { "temperature": 0.5 } } }');
    expect(loadOrcaConfig(project, { concurrency: 2, max_attempts: 9 }, env)).toEqual({
      concurrency: 2,
      max_attempts: 3,
      hitl: { auto: { deviation: 'stop', approval: 'approve' } },
      agents: { coder: { model: 'a/b', temperature: 0.5 } },
    });
  });

  it('should work with no files at all', () => {
    expect(loadOrcaConfig(project, undefined, env)).toEqual({});
  });

  it('should name the file and the key of a wrong value', () => {
    projectFile('{ "max_attempts": "ten" }');
    expect(() => loadOrcaConfig(project, {}, env)).toThrow(OrcaConfigError);
    expect(() => loadOrcaConfig(project, {}, env)).toThrow(/\.opencode\/orca\.jsonc: max_attempts: /);
  });

  it('should name the file and line of JSONC that does not parse, and refuse unknown keys', () => {
    globalFile('{\n  "concurrency": 2\n  "oops"\n}');
    expect(() => loadOrcaConfig(project, {}, env)).toThrow(/xdg\/opencode\/orca\.jsonc:3: .*not valid JSONC/);
    globalFile('{ "concurency": 2 }');
    expect(() => loadOrcaConfig(project, {}, env)).toThrow(/orca\.jsonc: .*concurency/);
    globalFile('{ "agents": { "wizard": {} } }');
    expect(() => loadOrcaConfig(project, {}, env)).toThrow(/agents/);
  });
});
