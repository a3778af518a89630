import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_OPENCODE, SUPPORTED_OPENCODE_RANGE, SUPPORTED_OPENCODE_TEXT, opencodeVerdict, opencodeVersionWords } from '../../src/config/supported-opencode.js';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

describe('the OpenCode versions Orca supports', () => {
  it('should be the range package.json declares, and the two binaries it installs for the tests', () => {
    expect(SUPPORTED_OPENCODE_RANGE).toBe('>=1.18.3 <=1.18.33');
    expect(manifest.peerDependencies?.['opencode-ai']).toBe(SUPPORTED_OPENCODE_RANGE);
    // Optional: users run OpenCode's own binary, and OpenCode installs the plugin by name; npm must never pull OpenCode in for it.
    expect(manifest.peerDependenciesMeta?.['opencode-ai']).toEqual({ optional: true });
    expect(manifest.devDependencies['opencode-ai']).toBe(SUPPORTED_OPENCODE.newest);
    expect(manifest.devDependencies['opencode-ai-oldest']).toBe(`npm:opencode-ai@${SUPPORTED_OPENCODE.oldest}`);
    // The plugin API and the SDK are the newest's: the plugin is built against it.
    expect(manifest.dependencies['@opencode-ai/plugin']).toBe(SUPPORTED_OPENCODE.newest);
    expect(manifest.dependencies['@opencode-ai/sdk']).toBe(SUPPORTED_OPENCODE.newest);
    expect(SUPPORTED_OPENCODE_TEXT).toBe('1.18.3 … 1.18.33');
  });

  it('should take both ends and every release between them', () => {
    for (const version of ['1.18.3', '1.18.4', '1.18.20', '1.18.33', 'v1.18.20', ' 1.18.33\n', '1.18.20+build.7', '1.18.33-rc.1']) expect(opencodeVerdict(version), version).toBe('supported');
  });

  it('should tell a version below the range', () => {
    for (const version of ['1.18.2', '1.18.0', '1.17.20', '1.17.99', '0.15.31', '1.18.3-beta.1', '0.0.0-dev-202612061200']) expect(opencodeVerdict(version), version).toBe('older');
  });

  it('should tell a version above the range', () => {
    for (const version of ['1.18.34', '1.19.0', '2.0.0', '1.18.34-beta.1', '10.0.0', '1.100.0']) expect(opencodeVerdict(version), version).toBe('newer');
  });

  it('should not guess at what is not a version', () => {
    for (const version of ['', 'local', '1.18', '1.18.x', 'opencode 1.18.33', '1.18.33.1', 'v', '01.18']) expect(opencodeVerdict(version), version).toBe('unknown');
  });

  it('should word each verdict as a warning outside the range, never a refusal', () => {
    expect(opencodeVersionWords('1.18.20')).toEqual({ supported: true, summary: 'supported (1.18.3 … 1.18.33)', advice: undefined });
    expect(opencodeVersionWords('1.17.20')).toEqual({
      supported: false,
      summary: 'older than the versions Orca supports (1.18.3 … 1.18.33)',
      advice: 'Orca may not work on it (a warning, not a refusal): update OpenCode to 1.18.3 or later, up to 1.18.33',
    });
    expect(opencodeVersionWords('1.19.0')).toEqual({
      supported: false,
      summary: 'newer than the versions Orca supports (1.18.3 … 1.18.33)',
      advice: 'Orca is not tested on it and may not work there (a warning, not a refusal); 1.18.33 is the newest OpenCode it is tested with',
    });
    expect(opencodeVersionWords('local')).toEqual({
      supported: false,
      summary: 'not a version Orca can compare with the ones it supports (1.18.3 … 1.18.33)',
      advice: 'Orca cannot tell whether it works there (a warning, not a refusal)',
    });
  });
});
