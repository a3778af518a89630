import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATIC_FILES, staticDir } from '../../src/ui/static-files.js';
import { projectRoot } from '../support/opencode-sandbox.js';

const dir = staticDir();
const read = (name: string) => readFileSync(join(dir, name), 'utf8');

describe('the page the viewer serves', () => {
  it('should serve exactly the files of src/ui/static', () => {
    expect([...STATIC_FILES].sort()).toEqual(readdirSync(dir).sort());
  });

  it('should load nothing from the network: no URL but its own, no framework', () => {
    for (const name of STATIC_FILES) {
      const urls = read(name).match(/\b(?:https?:)?\/\/[\w.-]+\.[a-z]{2,}[^\s'"`)]*/gi) ?? [];
      // The SVG namespace is a name, never fetched.
      expect([name, urls.filter((u) => u !== 'http://www.w3.org/2000/svg')]).toEqual([name, []]);
    }
    expect(read('index.html')).toMatch(/<script type="module" src="\/static\/app\.js"><\/script>/);
  });

  it('should import only modules it serves, and never write HTML from data', () => {
    for (const name of STATIC_FILES.filter((n) => n.endsWith('.js'))) {
      const text = read(name);
      for (const [, target] of text.matchAll(/from '\.\/([\w.-]+)'/g)) expect([name, STATIC_FILES.includes(target as never)]).toEqual([name, true]);
      expect([name, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/.test(text)]).toEqual([name, false]);
    }
  });

  it('should ship in the npm package beside the built server', () => {
    const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: projectRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as [{ files: Array<{ path: string }> }];
    const shipped = pack.files.map((f) => f.path);
    for (const name of STATIC_FILES) expect(shipped).toContain(`dist/ui/static/${name}`);
    expect(shipped).toContain('dist/ui/server.js');
  });
});
