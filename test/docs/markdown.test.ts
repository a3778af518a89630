import { describe, expect, it } from 'vitest';
import { anchors, brokenLinks, links, slug, type Site } from './markdown.js';

/** A small site: docs.test.ts checks the real one with these functions, so each must be able to fail. */
const FILES: Record<string, string> = {
  'README.md': '# Title\n\nSee [the gates](docs/gates.md#the-merge-gate).\n',
  'docs/gates.md': "# Gates\n\n## The merge gate\n\n## When a step's changes do not apply: the merge gate\n\n## Notes\n\n## Notes\n",
  'docs/plain.txt': 'text\n',
};
const site: Site = {
  exists: (path) => path in FILES || path === 'docs',
  anchors: (path) => (path.endsWith('.md') && path in FILES ? anchors(FILES[path]!) : undefined),
};

describe('anchors', () => {
  it("are GitHub's: lower case, punctuation dropped, spaces as hyphens, repeats numbered", () => {
    expect([...anchors(FILES['docs/gates.md']!)]).toEqual(['gates', 'the-merge-gate', 'when-a-steps-changes-do-not-apply-the-merge-gate', 'notes', 'notes-1']);
    expect(slug('Circuit breakers: the budget gate and the same error')).toBe('circuit-breakers-the-budget-gate-and-the-same-error');
    expect(slug('`orca ui` — the [viewer](viewer.md)')).toBe('orca-ui--the-viewer');
    expect(slug('What orca_ask_planner returns')).toBe('what-orca_ask_planner-returns');
  });

  it('leave out a heading inside a fenced code block', () => {
    expect([...anchors('# Real\n\n```ini\n# Not a heading\n```\n')]).toEqual(['real']);
  });
});

describe('links', () => {
  it('are the inline links outside code, with their line', () => {
    const text = 'a [x](one.md) and `[not](code.md)`\n```\n[nor](fenced.md)\n```\n[`code` text](two.md#b "title") ``[no](x.md)``\n';
    expect(links(text)).toEqual([
      { line: 1, target: 'one.md' },
      { line: 5, target: 'two.md#b' },
    ]);
  });
});

describe('brokenLinks', () => {
  it('is empty when every file and anchor exists', () => {
    expect(brokenLinks('README.md', FILES['README.md']!, site)).toEqual([]);
    expect(brokenLinks('docs/gates.md', '[up](../README.md#title) [here](#) [dir](../docs/) [web](https://example.com/x.md)', site)).toEqual([]);
  });

  it('names a missing file, a missing anchor, an anchor in a file that is not Markdown, and a path that leaves the repository', () => {
    const text = '[a](docs/missing.md)\n[b](docs/gates.md#the-quality-gate)\n[c](docs/plain.txt#top)\n[d](../outside.md)\n[e](/docs/gates.md)\n';
    expect(brokenLinks('README.md', text, site)).toEqual([
      'README.md:1: docs/missing.md: no file docs/missing.md',
      'README.md:2: docs/gates.md#the-quality-gate: docs/gates.md has no heading whose anchor is #the-quality-gate',
      'README.md:3: docs/plain.txt#top: docs/plain.txt is not a Markdown file, so it has no #top',
      'README.md:4: ../outside.md: outside the repository',
      'README.md:5: /docs/gates.md: a link from the repository root; write it relative to README.md',
    ]);
  });

  it('resolves a link against the folder of the file it is in', () => {
    expect(brokenLinks('docs/gates.md', '[r](README.md)', site)).toEqual(['docs/gates.md:1: README.md: no file docs/README.md']);
  });
});
