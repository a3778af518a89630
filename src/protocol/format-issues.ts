import type { z } from 'zod';

const MAX_ISSUES = 5;

/** Zod issues as one short line a model can act on: `steps[1].agent: expected one of …; …`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = formatPath(issue.path);
    const message = conciseMessage(issue.message);
    return path === '' ? message : `${path}: ${message}`;
  });
  const more = issues.length - lines.length;
  return more > 0 ? `${lines.join('; ')}; (+${more} more)` : lines.join('; ');
}

/** `['steps', 1, 'agent']` → `steps[1].agent`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`;
    const name = String(key);
    if (!/^[A-Za-z_$][\w$]*$/.test(name)) return `${out}[${JSON.stringify(name)}]`;
    return out === '' ? name : `${out}.${name}`;
  }, '');
}

function conciseMessage(message: string): string {
  return message
    .replace(/^Invalid (input|option): /, '')
    .replace(/^expected (.+), received undefined$/, 'missing (expected $1)');
}
