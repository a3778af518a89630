import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importGraph } from './import-graph.js';

describe('importGraph', () => {
  const root = mkdtempSync(join(tmpdir(), 'orca-layout-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const tree = (files: Record<string, string>): string => {
    const dir = mkdtempSync(join(root, 'tree-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  };

  it('should tell the imports erased by the compiler from those that load a module', () => {
    const dir = tree({
      'src/a.ts': [
        "import type { B } from './b.js';",
        // verbatimModuleSyntax keeps `import {} from './c.js'`: c runs.
        "import { type C } from './c.js';",
        "export type { D } from './d.js';",
        "export { e } from './e.js';",
        "export * from './sub/index.js';",
        "type F = typeof import('./f.js');",
        "const g = () => import('./g.js');",
        "import './h.js';",
      ].join('\n'),
      ...Object.fromEntries(['b', 'c', 'd', 'e', 'f', 'g', 'h', 'sub/index'].map((name) => [`src/${name}.ts`, 'export const x = 1;'])),
    });
    const graph = importGraph(dir);
    expect(graph.edges.map((e) => `${e.to}${e.typeOnly ? ' type' : ''}`)).toEqual([
      'src/b.ts type',
      'src/c.ts',
      'src/d.ts type',
      'src/e.ts',
      'src/sub/index.ts',
      'src/f.ts type',
      'src/g.ts',
      'src/h.ts',
    ]);
  });

  it('should name the package of each bare import', () => {
    const dir = tree({
      'src/a.ts': [
        "import { readFile } from 'node:fs/promises';",
        "import { join } from 'path';",
        "import { tool } from '@opencode-ai/plugin/tool';",
        "import type { Plugin } from '@opencode-ai/plugin';",
        "import { setup } from 'xstate';",
        "import { z } from 'zod/v4';",
      ].join('\n'),
    });
    expect(importGraph(dir).packages.map((use) => `${use.specifier} ${use.name}${use.typeOnly ? ' type' : ''}`)).toEqual([
      'node:fs/promises node:fs',
      'path node:path',
      '@opencode-ai/plugin/tool @opencode-ai/plugin',
      '@opencode-ai/plugin @opencode-ai/plugin type',
      'xstate xstate',
      'zod/v4 zod',
    ]);
  });

  it('should refuse an import it cannot follow', () => {
    expect(() => importGraph(tree({ 'src/a.ts': "import { x } from './missing.js';" }))).toThrow("src/a.ts: import './missing.js' names no file under src/");
    expect(() => importGraph(tree({ 'src/a.ts': 'const load = (name: string) => import(name);' }))).toThrow(
      'src/a.ts:1: import() of a computed name; the layout test can only check a literal one',
    );
  });
});
