import { describe, expect, it } from 'vitest';
import { OrcaConfigError, isolationSettings, parseOptions } from '../../src/config/options.js';
import { optionsJsonSchema } from '../../src/cli/options-schema.js';

describe('isolation', () => {
  it('should default to a worktree per step, nothing included, no setup, 300 seconds', () => {
    expect(isolationSettings(parseOptions({}))).toEqual({ mode: 'worktree', include: [], setup: null, setupTimeoutMs: 300_000 });
    expect(isolationSettings(parseOptions({ isolation: {} }))).toEqual({ mode: 'worktree', include: [], setup: null, setupTimeoutMs: 300_000 });
  });

  it('should take every setting', () => {
    const options = parseOptions({ isolation: { mode: 'none', include: ['.env', 'node_modules'], setup: 'npm ci', setup_seconds: 60 } });
    expect(isolationSettings(options)).toEqual({ mode: 'none', include: ['.env', 'node_modules'], setup: 'npm ci', setupTimeoutMs: 60_000 });
  });

  it('should normalize the included paths and keep each once, in order', () => {
    const options = parseOptions({ isolation: { include: ['./node_modules/', '.env', 'node_modules', 'config//local.json', 'a\\b'] } });
    expect(isolationSettings(options).include).toEqual(['node_modules', '.env', 'config/local.json', 'a/b']);
  });

  it('should keep dotfiles that only start like .git', () => {
    expect(isolationSettings(parseOptions({ isolation: { include: ['.github', '.gitignore.local'] } })).include).toEqual(['.github', '.gitignore.local']);
  });

  it('should trim the setup command', () => {
    expect(isolationSettings(parseOptions({ isolation: { setup: '  npm ci \n' } })).setup).toBe('npm ci');
  });

  it('should refuse bad values with the key and what was expected', () => {
    expect(() => parseOptions({ isolation: { mode: 'copy' } })).toThrow(OrcaConfigError);
    expect(() => parseOptions({ isolation: { mode: 'copy' } })).toThrow(/isolation\.mode: .*"worktree".*"none"/);
    expect(() => parseOptions({ isolation: { include: '.env' } })).toThrow(/isolation\.include: .*array/);
    expect(() => parseOptions({ isolation: { include: ['/etc/passwd'] } })).toThrow(/isolation\.include\.0: expected a path relative to the project, not an absolute one/);
    expect(() => parseOptions({ isolation: { include: ['C:\\secrets'] } })).toThrow(/isolation\.include\.0: .*not an absolute one/);
    expect(() => parseOptions({ isolation: { include: ['.env', '../shared/.env'] } })).toThrow(/isolation\.include\.1: expected a path inside the project, without "\.\."/);
    expect(() => parseOptions({ isolation: { include: ['./'] } })).toThrow(/isolation\.include\.0: expected a file or folder of the project, not the project itself/);
    expect(() => parseOptions({ isolation: { include: [''] } })).toThrow(/isolation\.include\.0: expected a path relative to the project, e\.g\. "\.env"/);
    expect(() => parseOptions({ isolation: { include: ['.git/hooks'] } })).toThrow(/isolation\.include\.0: expected a path git does not manage, not \.git/);
    expect(() => parseOptions({ isolation: { setup: '   ' } })).toThrow(/isolation\.setup: expected a shell command, e\.g\. "npm ci"/);
    expect(() => parseOptions({ isolation: { setup: ['npm ci'] } })).toThrow(/isolation\.setup: /);
    expect(() => parseOptions({ isolation: { setup_seconds: 0 } })).toThrow(/isolation\.setup_seconds: .*>=1/);
    expect(() => parseOptions({ isolation: { setup_seconds: 3601 } })).toThrow(/isolation\.setup_seconds: .*<=3600/);
    expect(() => parseOptions({ isolation: { setup_seconds: 1.5 } })).toThrow(/isolation\.setup_seconds: .*expected int/);
    expect(() => parseOptions({ isolation: { copy: ['.env'] } })).toThrow(/isolation: .*"copy"/);
  });

  it('should be in the JSON schema of orca.jsonc, unknown keys forbidden', () => {
    const isolation = (optionsJsonSchema() as any).properties.isolation;
    expect(isolation.additionalProperties).toBe(false);
    expect(Object.keys(isolation.properties)).toEqual(['mode', 'include', 'setup', 'setup_seconds']);
    expect(isolation.properties.mode).toMatchObject({ enum: ['worktree', 'none'] });
    expect(isolation.properties.setup_seconds).toMatchObject({ type: 'integer', minimum: 1, maximum: 3600, description: expect.stringMatching(/default 300/) });
  });
});

describe('hitl.auto.merge', () => {
  it('should take rerun or stop, beside resume', () => {
    expect(parseOptions({ hitl: { auto: { merge: 'rerun', resume: 'stop' } } }).hitl?.auto).toEqual({ merge: 'rerun', resume: 'stop' });
    expect(parseOptions({ hitl: { auto: { merge: 'stop' } } }).hitl?.auto?.merge).toBe('stop');
  });

  it('should refuse anything else, Resolved by hand included: that needs a human', () => {
    expect(() => parseOptions({ hitl: { auto: { merge: 'resolved' } } })).toThrow(/hitl\.auto\.merge: .*"rerun".*"stop"/);
  });

  it('should be in the JSON schema, saying a human resolves by hand', () => {
    const merge = (optionsJsonSchema() as any).properties.hitl.properties.auto.properties.merge;
    expect(merge).toMatchObject({ enum: ['rerun', 'stop'], description: expect.stringMatching(/merge gate.*Resolved by hand always needs a human/) });
  });
});
