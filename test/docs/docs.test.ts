import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { COMMANDS } from '../../src/cli/main.js';
import { orcaOptions } from '../../src/config/options.js';
import { anchors, brokenLinks, linkProblem, links, resolveLink, type Site } from './markdown.js';

/**
 * The README and the pages of docs/ kept in step with each other and with the code: every link and
 * anchor resolves, every page is reachable from the README, the README stays a start page, and the
 * CLI and configuration pages name every command and option the code has.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The README's budget: the pitch, the two commands, install, a first plan, the status and the table of contents. */
const README_MAX_LINES = 160;

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const site: Site = {
  exists: (path) => existsSync(join(ROOT, path)),
  anchors: (path) => (path.endsWith('.md') && existsSync(join(ROOT, path)) ? anchors(read(path)) : undefined),
};
const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const PAGES = ['README.md', 'ARCHITECTURE.md', ...DOCS];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

describe('links', () => {
  it.each(PAGES)('every relative link and #anchor in %s resolves', (page) => {
    expect(brokenLinks(page, read(page), site)).toEqual([]);
  });

  it('the README links every page of docs/', () => {
    const linked = new Set(links(read('README.md')).map(({ target }) => resolveLink('README.md', target)?.path));
    expect(DOCS.length).toBeGreaterThan(0);
    expect(DOCS.filter((page) => !linked.has(page))).toEqual([]);
  });

  it('a docs page the code names (orca doctor\'s hints, comments) exists, with the heading its #anchor names', () => {
    const cited = sourceFiles('src').flatMap((file) =>
      [...read(file).matchAll(/\bdocs\/[\w.-]+\.md(?:#[\w-]+)?/g)].map((match) => ({ file, target: match[0] })),
    );
    expect(cited.map(({ target }) => target)).toContain('docs/plan-files.md');
    const broken = cited.flatMap(({ file, target }) => {
      const problem = linkProblem('README.md', target, site);
      return problem === null ? [] : [`${file}: ${problem}`];
    });
    expect(broken).toEqual([]);
  });

  it('a section of docs/design.md the code cites by its title (docs/design.md followed by the title in quotes) is a heading there', () => {
    const headings = new Set([...read('docs/design.md').matchAll(/^#+ (.+)$/gm)].map((match) => match[1]!.trim()));
    const cited = ['src', 'test'].flatMap(sourceFiles).flatMap((file) =>
      [...read(file).matchAll(/docs\/design\.md, "([^"]+)"/g)].map((match) => ({ file, title: match[1]! })),
    );
    expect(cited.length).toBeGreaterThan(10);
    expect(cited.filter(({ title }) => !headings.has(title)).map(({ file, title }) => `${file}: "${title}"`)).toEqual([]);
  });
});

describe('README', () => {
  it(`stays a start page: at most ${README_MAX_LINES} lines, the reference in docs/`, () => {
    const lines = read('README.md').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('keeps Install a section of its own', () => {
    expect(read('README.md')).toMatch(/^## Install$/m);
  });
});

describe('docs/cli.md', () => {
  const cli = read('docs/cli.md');
  /** The row of the command table that documents `orca <name>`. */
  const row = (name: string) => cli.split('\n').find((line) => line.startsWith(`| \`orca ${name} `) || line.startsWith(`| \`orca ${name}\``));

  it.each(Object.keys(COMMANDS))('has a row for orca %s that names each of its options', (name) => {
    const line = row(name);
    expect(line, `docs/cli.md has no row | \`orca ${name} …\``).toBeDefined();
    // `steps` is undo's --step given again and again.
    const kebab = (option: string) => (option === 'steps' ? '--step' : `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    expect(COMMANDS[name]!.options.map(kebab).filter((flag) => !line!.includes(flag))).toEqual([]);
  });
});

/** Every option's dotted path: objects are walked, a record's keys are `<id>`, anything else is a leaf. */
function optionPaths(schema: z.ZodType, prefix = ''): string[] {
  const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
  if (inner instanceof z.ZodObject) return Object.entries(inner.shape).flatMap(([key, child]) => optionPaths(child as z.ZodType, prefix ? `${prefix}.${key}` : key));
  if (inner instanceof z.ZodRecord) return optionPaths(inner.valueType as z.ZodType, `${prefix}.<id>`);
  return [prefix];
}

describe('docs/configuration.md', () => {
  const doc = read('docs/configuration.md');
  const paths = optionPaths(orcaOptions);
  const rows = doc.split('\n').filter((line) => line.startsWith('| `'));
  const documented = rows.flatMap((line) => [...line.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!));

  it('names every option of src/config/options.ts', () => {
    expect(paths).toContain('concurrency');
    expect(paths).toContain('hitl.auto.merge');
    // An agent's settings are one row, `agents.<id>`, that names each key of an agent's entry.
    const agentRow = rows.find((line) => line.startsWith('| `agents.<id>` |')) ?? '';
    const missing = paths.filter((path) => {
      if (documented.includes(path)) return false;
      const key = /^agents\.<id>\.(\w+)$/.exec(path)?.[1];
      return key === undefined || !agentRow.includes(`\`${key}\``);
    });
    expect(missing).toEqual([]);
  });

  it('documents no option the code does not have', () => {
    const known = (path: string) => paths.some((option) => option === path || option.startsWith(`${path}.`));
    expect(documented.length).toBeGreaterThan(0);
    expect(documented.filter((path) => !known(path))).toEqual([]);
  });
});


describe('docs/statecharts.md', () => {
  it('draws each chart it names as statecharts/ has it (npm run statecharts, then copy the diagram)', () => {
    const page = read('docs/statecharts.md');
    const drawn = [...page.matchAll(/\(`statecharts\/([\w-]+\.mmd)`\):[\s\S]*?```mermaid\n([\s\S]*?)```/g)];
    expect(drawn.map(([, file]) => file)).toEqual(['plan.mmd', 'step.mmd', 'rewind.mmd']);
    for (const [, file, diagram] of drawn) expect(diagram, file).toBe(read(`statecharts/${file}`).trimEnd() + '\n');
  });
});
