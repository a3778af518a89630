// The project the relay's server works in: a copy of the caller's (--project), or a small demo
// with one bug and a failing `node --test`, so the team has something real to read, fix and test.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const DEMO_FILES: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'stats-demo', version: '1.0.0', type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
  'README.md': '# stats-demo\n\nTiny statistics helpers. `npm test` runs the tests (`node --test`).\n',
  'src/stats.js': [
    '/** The arithmetic mean of a non-empty array of numbers. */',
    'export function mean(values) {',
    '  let sum = 0;',
    '  for (const v of values) sum += v;',
    '  return sum / (values.length - 1);',
    '}',
    '',
    '/** The largest value, or undefined for an empty array. */',
    'export function max(values) {',
    '  return values.length === 0 ? undefined : Math.max(...values);',
    '}',
    '',
  ].join('\n'),
  'test/stats.test.js': [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { mean, max } from '../src/stats.js';",
    '',
    "test('mean of 2, 4, 6 is 4', () => assert.equal(mean([2, 4, 6]), 4));",
    "test('mean of one value is that value', () => assert.equal(mean([5]), 5));",
    "test('max', () => assert.equal(max([1, 9, 3]), 9));",
    '',
  ].join('\n'),
};

/** Writes the project into `target` (a copy of `source` without node_modules, or the demo) and makes sure it is a git repo with a commit. */
export function prepareProject(target: string, source?: string): void {
  if (existsSync(join(target, '.git'))) return; // a rerun on the same --dir keeps its project as it is
  mkdirSync(target, { recursive: true });
  if (source) cpSync(source, target, { recursive: true, filter: (path) => basename(path) !== 'node_modules' });
  else for (const [path, content] of Object.entries(DEMO_FILES)) writeTree(join(target, path), content);
  if (existsSync(join(target, '.git'))) return;
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=orca-relay', '-c', 'user.email=relay@orca.invalid', ...args], { cwd: target, stdio: 'ignore', timeout: 30_000 });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '--allow-empty', '-m', 'initial');
}

function writeTree(path: string, content: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}
